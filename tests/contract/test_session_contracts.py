"""The shared session-context contracts (``agent_sdk.contracts``), without I/O.

The contract tests of decisions.md S3-17: the provider bag round-trips both ways (a
newer client's payload parses here, a minimal older one parses on this version),
absent providers are ``None``, tool intents validate plane and typed params,
navigation rejects anything URL-shaped, and the frozen v1 request envelope still
parses unchanged.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_sdk.contracts import (
    INTENT_REASONS,
    KNOWN_PROVIDERS,
    SURFACE_KEY_PATTERN,
    TYPED_TOOL_PARAMS,
    AgentSessionContext,
    AgentToolIntent,
    ClientToolsProvider,
    CurrentPageContext,
    KnowledgeBaseProvider,
    NavigateParams,
    PermissionsProvider,
    ProposeMatterWriteParams,
    QueryMattersParams,
    SessionResolveRequest,
    SessionResolveResponse,
    SurfaceEntry,
    SurfaceProvider,
    ToolDecision,
    is_surface_key,
)

FROZEN_V1 = Path(__file__).parent / "snapshots" / "session_resolve_request.v1.json"

# Everything a navigation target must never be: a slash, a scheme, a colon,
# whitespace, mixed case (and the empty key).
URL_SHAPED = (
    "https://evil.example.com/settings",
    "http://example.com",
    "javascript:alert(1)",
    "//evil.example.com",
    "/settings/team",
    "settings/team",
    "matters:read",
    "data:text/html",
    "settings team",
    " settings.team",
    "settings.team\n",
    "settings\tteam",
    "Settings.Team",
    "settings.Team",
    "SETTINGS",
    "",
    "matters.list?tab=1",
    "matters#top",
    "x" * 129,
)


def _errors(error: ValidationError) -> list[tuple[tuple[str | int, ...], str]]:
    return [(tuple(item["loc"]), item["type"]) for item in error.errors()]


def _request(context: dict[str, Any], *intents: dict[str, Any]) -> dict[str, Any]:
    return {"context": context, "intents": list(intents)}


def _navigate(surface_key: Any, **extra: Any) -> dict[str, Any]:
    return {
        "name": "navigate_to",
        "plane": "client",
        "params": {"surface_key": surface_key, **extra},
    }


# ------------------------------------------------------------ the provider bag


def test_newer_client_payload_parses_on_this_version() -> None:
    """A v2 client adds a deadlines provider and extra fields inside surface."""
    payload = {
        "version": 2,
        "session_hint": "kept out",
        "providers": {
            "surface": {
                "current_surface_key": "matters.list",
                "layout": "split",
                "available_surfaces": [
                    {"surface_key": "matters.list", "title": "Matters", "badge": 3},
                ],
            },
            "deadlines": {"items": [{"matter_id": "m-42", "due": "2026-12-01"}]},
        },
    }

    ctx = AgentSessionContext.model_validate(payload)

    assert ctx.version == 2
    surface = ctx.surface()
    assert surface == SurfaceProvider(
        current_surface_key="matters.list",
        available_surfaces=(SurfaceEntry(surface_key="matters.list", title="Matters"),),
    )
    # The unknown provider is kept raw, exactly as sent.
    assert ctx.provider("deadlines") == payload["providers"]["deadlines"]  # type: ignore[index]
    assert ctx.provider("surface") == payload["providers"]["surface"]  # type: ignore[index]
    assert ctx.current_page() is None


def test_minimal_v1_payload_parses_and_absent_providers_are_none() -> None:
    ctx = AgentSessionContext.model_validate({"version": 1, "providers": {}})

    assert ctx.surface() is None
    assert ctx.current_page() is None
    assert ctx.knowledge_base() is None
    assert ctx.permissions() is None
    assert ctx.client_tools() is None
    assert ctx.provider("deadlines") is None
    ctx.check_known_providers()


def test_every_known_provider_is_typed_on_access() -> None:
    ctx = AgentSessionContext.model_validate(
        {
            "version": 1,
            "providers": {
                "cpc": {
                    "surface_key": "matters.detail",
                    "entity_type": "matter",
                    "entity_id": "m-42",
                },
                "kb": {"collection_keys": ["playbooks"], "document_ids": ["doc-7"]},
                "permissions": {"granted": ["settings:write"]},
                "clientTools": {"tools": [{"name": "navigate_to", "icon": "arrow"}]},
            },
        }
    )

    assert ctx.current_page() == CurrentPageContext(
        surface_key="matters.detail", entity_type="matter", entity_id="m-42"
    )
    assert ctx.knowledge_base() == KnowledgeBaseProvider(
        collection_keys=("playbooks",), document_ids=("doc-7",)
    )
    assert ctx.permissions() == PermissionsProvider(granted=("settings:write",))
    tools = ctx.client_tools()
    assert isinstance(tools, ClientToolsProvider)
    assert [tool.name for tool in tools.tools] == ["navigate_to"]
    assert set(KNOWN_PROVIDERS) == {"surface", "cpc", "kb", "permissions", "clientTools"}


def test_malformed_known_provider_fails_on_access_not_on_parse() -> None:
    """Lazy: a consumer that never reads kb does not care that kb is malformed."""
    ctx = AgentSessionContext.model_validate(
        {"version": 1, "providers": {"kb": {"document_ids": "doc-7"}, "surface": {}}}
    )

    assert ctx.surface() == SurfaceProvider()
    with pytest.raises(ValidationError) as raised:
        ctx.knowledge_base()
    assert _errors(raised.value) == [(("providers", "kb", "document_ids"), "tuple_type")]


@pytest.mark.parametrize(
    "payload",
    [
        {"providers": {}},
        {"version": 0, "providers": {}},
        {"version": "1", "providers": {}},
        {"version": True, "providers": {}},
        {"version": 1.0, "providers": {}},
        {"version": 1},
        {"version": 1, "providers": []},
        {"version": 1, "providers": {"deadlines": ["not", "an", "object"]}},
        {"version": 1, "providers": {"surface": None}},
        {"version": 1, "providers": {f"p{i}": {} for i in range(65)}},
    ],
)
def test_bag_itself_rejects(payload: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AgentSessionContext.model_validate(payload)


def test_a_declared_field_never_takes_null() -> None:
    ctx = AgentSessionContext.model_validate(
        {"version": 1, "providers": {"surface": {"current_surface_key": None}}}
    )
    with pytest.raises(ValidationError) as raised:
        ctx.surface()
    assert _errors(raised.value) == [(("providers", "surface"), "null_field")]


# ------------------------------------------------------------ surface keys


@pytest.mark.parametrize("key", URL_SHAPED)
def test_navigate_params_reject_url_shaped_keys(key: str) -> None:
    with pytest.raises(ValidationError) as raised:
        NavigateParams.model_validate({"surface_key": key})
    assert _errors(raised.value) == [(("surface_key",), "surface_key")]


@pytest.mark.parametrize("key", URL_SHAPED)
def test_surface_entries_reject_url_shaped_keys(key: str) -> None:
    with pytest.raises(ValidationError):
        SurfaceEntry.model_validate({"surface_key": key})


@pytest.mark.parametrize("key", ["home", "matters.list", "settings.team", "a_b-c.9", "x" * 128])
def test_durable_keys_pass(key: str) -> None:
    assert NavigateParams.model_validate({"surface_key": key}).surface_key == key
    assert SurfaceEntry.model_validate({"surface_key": key}).surface_key == key


@given(st.text(max_size=140))
def test_surface_key_is_exactly_the_allowed_characters(key: str) -> None:
    expected = re.fullmatch(SURFACE_KEY_PATTERN, key) is not None and len(key) <= 128
    assert is_surface_key(key) == expected
    try:
        NavigateParams.model_validate({"surface_key": key})
    except ValidationError:
        assert not expected
    else:
        assert expected
        assert not any(mark in key for mark in ("/", ":", " ", "\n", "\t"))
        assert key == key.lower()


def test_navigate_params_are_closed_and_typed() -> None:
    ok = NavigateParams.model_validate(
        {"surface_key": "matters.detail", "params": {"matter_id": "m-42", "page": 2, "edit": True}}
    )
    assert ok.params == {"matter_id": "m-42", "page": 2, "edit": True}

    with pytest.raises(ValidationError) as raised:
        NavigateParams.model_validate({"surface_key": "home", "url": "https://x.example.com"})
    assert _errors(raised.value) == [(("url",), "extra_forbidden")]

    for value in ("https://x.example.com", "a/b", "a:b", "a b", 1.5, None, ["x"]):
        with pytest.raises(ValidationError):
            NavigateParams.model_validate({"surface_key": "home", "params": {"id": value}})


# ------------------------------------------------------------ tool intents


def test_intent_validates_plane_and_params_is_an_object() -> None:
    for plane in ("edge", "CLIENT", "", None, 1):
        with pytest.raises(ValidationError):
            AgentToolIntent.model_validate({"name": "query_matters", "plane": plane, "params": {}})
    for params in ("https://x.example.com", ["a"], 1, None, True):
        with pytest.raises(ValidationError):
            AgentToolIntent.model_validate(
                {"name": "forged_tool", "plane": "server", "params": params}
            )
    with pytest.raises(ValidationError) as raised:
        AgentToolIntent.model_validate({"name": "query_matters", "plane": "server"})
    assert _errors(raised.value) == [(("params",), "missing")]


def test_typed_tools_get_their_params_models() -> None:
    navigate = AgentToolIntent.model_validate(_navigate("matters.list"))
    query = AgentToolIntent.model_validate(
        {"name": "query_matters", "plane": "server", "params": {"query": "overdue", "limit": 5}}
    )
    propose = AgentToolIntent.model_validate(
        {
            "name": "propose_matter_write",
            "plane": "server",
            "params": {"matter_id": "m-42", "changes": {"status": "closed"}},
        }
    )

    assert navigate.typed_params() == NavigateParams(surface_key="matters.list")
    assert navigate.navigation_target() == "matters.list"
    assert query.typed_params() == QueryMattersParams(query="overdue", limit=5)
    assert query.navigation_target() is None
    assert propose.typed_params() == ProposeMatterWriteParams(
        matter_id="m-42", changes={"status": "closed"}
    )
    assert set(TYPED_TOOL_PARAMS) == {"navigate_to", "query_matters", "propose_matter_write"}


@pytest.mark.parametrize(
    ("intent", "where"),
    [
        (_navigate("https://evil.example.com"), ("params", "surface_key")),
        (_navigate("matters.list", url="https://x.example.com"), ("params", "url")),
        ({"name": "navigate_to", "plane": "client", "params": {}}, ("params", "surface_key")),
        (
            {"name": "query_matters", "plane": "server", "params": {"limit": "10"}},
            ("params", "limit"),
        ),
        ({"name": "query_matters", "plane": "server", "params": {"limit": 0}}, ("params", "limit")),
        ({"name": "query_matters", "plane": "server", "params": {"sql": "x"}}, ("params", "sql")),
        (
            {
                "name": "propose_matter_write",
                "plane": "server",
                "params": {"matter_id": "m/1", "changes": {"a": 1}},
            },
            ("params", "matter_id"),
        ),
        (
            {
                "name": "propose_matter_write",
                "plane": "server",
                "params": {"matter_id": "m-1", "changes": {}},
            },
            ("params", "changes"),
        ),
    ],
)
def test_malformed_params_of_typed_tools_are_rejected_at_their_path(
    intent: dict[str, Any], where: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as raised:
        AgentToolIntent.model_validate(intent)
    assert where in [loc for loc, _ in _errors(raised.value)]


def test_unknown_tool_keeps_its_params_and_is_not_rejected() -> None:
    """A forged or future tool is the server's decision (denied), never a parse error."""
    intent = AgentToolIntent.model_validate(
        {"name": "forged_admin_tool", "plane": "server", "params": {"member": "robin", "n": [1]}}
    )

    assert intent.typed_params() is None
    assert intent.params == {"member": "robin", "n": [1]}


# ------------------------------------------------------------ the envelope


def test_envelope_is_closed_while_the_context_is_open() -> None:
    context = {"version": 3, "extra": True, "providers": {"surface": {"new": 1}, "future": {}}}

    request = SessionResolveRequest.model_validate(_request(context))
    assert request.context.version == 3

    with pytest.raises(ValidationError) as raised:
        SessionResolveRequest.model_validate({**_request(context), "debug": True})
    assert _errors(raised.value) == [(("debug",), "extra_forbidden")]
    with pytest.raises(ValidationError):
        SessionResolveRequest.model_validate({"context": context})


def test_envelope_checks_every_known_provider_eagerly() -> None:
    for providers, where in [
        ({"surface": {"available_surfaces": [{"surface_key": "/settings"}]}}, "surface"),
        ({"surface": {"current_surface_key": "https://x.example.com"}}, "surface"),
        ({"cpc": {"surface_key": "a:b"}}, "cpc"),
        ({"kb": {"document_ids": [1]}}, "kb"),
        ({"permissions": {"granted": "settings:write"}}, "permissions"),
        ({"clientTools": {"tools": [{"name": ""}]}}, "clientTools"),
    ]:
        with pytest.raises(ValidationError) as raised:
            SessionResolveRequest.model_validate(_request({"version": 1, "providers": providers}))
        (loc, _), *_ = _errors(raised.value)
        assert loc[:3] == ("context", "providers", where), loc


def test_intent_errors_carry_their_full_path() -> None:
    with pytest.raises(ValidationError) as raised:
        SessionResolveRequest.model_validate(
            _request({"version": 1, "providers": {}}, _navigate("home"), _navigate("/x"))
        )
    assert _errors(raised.value) == [(("intents", 1, "params", "surface_key"), "surface_key")]


def test_at_most_32_intents() -> None:
    context = {"version": 1, "providers": {}}
    SessionResolveRequest.model_validate(_request(context, *[_navigate("home")] * 32))
    with pytest.raises(ValidationError):
        SessionResolveRequest.model_validate(_request(context, *[_navigate("home")] * 33))


def test_frozen_v1_envelope_still_parses_unchanged() -> None:
    payload = json.loads(FROZEN_V1.read_text(encoding="utf-8"))

    request = SessionResolveRequest.model_validate(payload)

    assert request.context.version == 1
    surface = request.context.surface()
    assert surface is not None
    assert [entry.surface_key for entry in surface.available_surfaces] == [
        "home",
        "matters.list",
        "matters.detail",
        "settings.team",
    ]
    assert [(intent.name, intent.plane) for intent in request.intents] == [
        ("navigate_to", "client"),
        ("open_matter_panel", "client"),
        ("query_matters", "server"),
        ("propose_matter_write", "server"),
    ]
    assert request.intents[0].navigation_target() == "matters.detail"


# ------------------------------------------------------------ the answer


def test_decision_carries_a_reason_exactly_when_denied() -> None:
    ToolDecision(name="query_matters", plane="server", decision="accepted")
    ToolDecision(name="x", plane="server", decision="denied", reason="unknown_tool")
    with pytest.raises(ValidationError):
        ToolDecision(name="x", plane="server", decision="denied")
    with pytest.raises(ValidationError):
        ToolDecision(name="x", plane="server", decision="accepted", reason="unknown_tool")
    with pytest.raises(ValidationError):
        ToolDecision(name="x", plane="server", decision="denied", reason="because")  # type: ignore[arg-type]
    assert {
        "not_reachable",
        "unknown_tool",
        "plane_mismatch",
        "missing_permission",
    } == INTENT_REASONS


def test_answer_parses_for_clients() -> None:
    answer = SessionResolveResponse.model_validate(
        {
            "permissions": ["matters:read"],
            "reachable_surfaces": [
                {"surface_key": "home"},
                {"surface_key": "matters.list", "required_permission": "matters:read"},
            ],
            "decisions": [
                {"name": "navigate_to", "plane": "client", "decision": "accepted"},
                {
                    "name": "forged",
                    "plane": "server",
                    "decision": "denied",
                    "reason": "unknown_tool",
                },
            ],
        }
    )
    assert [d.decision for d in answer.decisions] == ["accepted", "denied"]


# ------------------------------------------------------------ purity


def test_contracts_import_nothing_of_the_server() -> None:
    """Adapters install the SDK alone: no app, repositories, SQLAlchemy or Connexion."""
    probe = (
        "import sys, agent_sdk, agent_sdk.contracts\n"
        "heavy = {'app', 'repositories', 'sqlalchemy', 'connexion', 'psycopg2', 'requests'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
