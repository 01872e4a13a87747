"""``AgentToolIntent`` parses its typed params once, at validation, and keeps them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_sdk.contracts import AgentToolIntent, NavigateParams, SessionResolveRequest


def test_typed_params_are_parsed_once_and_reused() -> None:
    intent = AgentToolIntent.model_validate(
        {"name": "navigate_to", "plane": "client", "params": {"surface_key": "matters.list"}}
    )

    first = intent.typed_params()
    assert first == NavigateParams(surface_key="matters.list")
    assert intent.typed_params() is first
    assert intent.navigation_target() == "matters.list"
    assert intent == AgentToolIntent.model_validate(intent.model_dump())


def test_an_untyped_tool_caches_none() -> None:
    intent = AgentToolIntent.model_validate({"name": "future", "plane": "server", "params": {}})

    assert intent.typed_params() is None
    assert intent.typed_params() is None
    assert intent.navigation_target() is None


def test_parse_time_errors_keep_their_full_location_and_type() -> None:
    bad = {"name": "query_matters", "plane": "server", "params": {"limit": 0, "sql": "x"}}
    with pytest.raises(ValidationError) as raised:
        SessionResolveRequest.model_validate(
            {"context": {"version": 1, "providers": {}}, "intents": [bad]}
        )

    assert [(e["loc"], e["type"]) for e in raised.value.errors()] == [
        (("intents", 0, "params", "limit"), "greater_than_equal"),
        (("intents", 0, "params", "sql"), "extra_forbidden"),
    ]
