"""One contract, two descriptions: ``openapi/openapi.yaml`` and ``agent_sdk.contracts``.

Connexion validates a request against the spec before the handler runs, and the
handler parses it with the shared pydantic contracts; adapters use the contracts
alone. These tests check, without PostgreSQL or OPA, that both accept and reject the
same payloads (a corpus and property tests), that the lists they share are equal,
that the frozen v1 envelope and the examples are valid, and that the request and
response schemas of resolveSessionContext and run_context.v1 changed only additively
since the committed snapshot (``tests/contract/snapshots/api_schemas.json``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from connexion.json_schema import Draft4RequestValidator
from hypothesis import given, settings
from hypothesis import strategies as st
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from pydantic import ValidationError

from agent_sdk.contracts import (
    INTENT_REASONS,
    KNOWN_PROVIDERS,
    TYPED_TOOL_PARAMS,
    SessionResolveRequest,
    SessionResolveResponse,
)
from app.http.routes import load_spec
from app.http.validation import FORMAT_CHECKER
from tests.support.schema_compat import (
    SNAPSHOT_PATH,
    SNAPSHOT_SCHEMAS,
    breaking_changes,
    current_schemas,
    dereference,
)

FROZEN_V1 = Path(__file__).parent / "snapshots" / "session_resolve_request.v1.json"
RESOLVE = "/api/v1/agents/session-context/resolve"


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    """The parsed spec, cached for the process: read it, deep-copy it to change it."""
    return load_spec()


@pytest.fixture(scope="module")
def request_validator(spec: dict[str, Any]) -> Any:
    """The request body schema as Connexion checks it (Draft 4, our format checker)."""
    schema = dereference(spec, spec["components"]["schemas"]["SessionResolveRequest"])
    # Recursive references left by dereference resolve against the spec's components.
    schema["components"] = spec["components"]
    return Draft4RequestValidator(schema, format_checker=FORMAT_CHECKER)


def _openapi_accepts(validator: Any, payload: Any) -> bool:
    return not list(validator.iter_errors(payload))


def _contract_accepts(payload: Any) -> bool:
    try:
        SessionResolveRequest.model_validate(payload)
    except ValidationError:
        return False
    return True


def _request(providers: dict[str, Any] | None = None, *intents: dict[str, Any]) -> dict[str, Any]:
    return {"context": {"version": 1, "providers": providers or {}}, "intents": list(intents)}


def _navigate(params: Any) -> dict[str, Any]:
    return {"name": "navigate_to", "plane": "client", "params": params}


def _frozen() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(FROZEN_V1.read_text(encoding="utf-8"))
    return loaded


ACCEPTED = [
    _frozen(),
    _request(),
    # At the bounds of open bags and free JSON.
    {"context": {"version": 1, "providers": {}, **{f"f{i}": 1 for i in range(14)}}, "intents": []},
    _request({"deadlines": {f"k{i}": list(range(200)) for i in range(64)}}),
    _request(None, {"name": "x", "plane": "server", "params": {f"k{i}": 1 for i in range(64)}}),
    {
        "context": {"version": 7, "later": {"a": 1}, "providers": {"deadlines": {"x": [1]}}},
        "intents": [],
    },
    _request(
        {"surface": {"available_surfaces": [{"surface_key": "home", "icon": "house"}], "x": 1}}
    ),
    _request({"permissions": {"granted": ["settings:write"], "source": "tab"}}),
    _request(
        None, _navigate({"surface_key": "matters.detail", "params": {"matter_id": "m-42", "n": 3}})
    ),
    _request(None, {"name": "forged_admin_tool", "plane": "server", "params": {"any": ["thing"]}}),
    _request(None, {"name": "navigate_to", "plane": "server", "params": {"surface_key": "home"}}),
    _request(None, {"name": "query_matters", "plane": "server", "params": {}}),
]

REJECTED = [
    {**_request(), "debug": True},
    {"context": {"version": 1, "providers": {}}},
    {"intents": []},
    {"context": {"version": "1", "providers": {}}, "intents": []},
    {"context": {"version": 0, "providers": {}}, "intents": []},
    {"context": {"version": True, "providers": {}}, "intents": []},
    {"context": {"providers": {}}, "intents": []},
    {"context": {"version": 1, "providers": {"future": "not an object"}}, "intents": []},
    _request({"surface": {"available_surfaces": [{"surface_key": "https://evil.example.com"}]}}),
    _request({"surface": {"available_surfaces": [{"title": "no key"}]}}),
    _request({"surface": {"current_surface_key": "/settings"}}),
    _request({"surface": {"available_surfaces": "home"}}),
    _request({"cpc": {"surface_key": "Matters"}}),
    _request({"kb": {"document_ids": [7]}}),
    _request({"permissions": {"granted": "settings:write"}}),
    _request({"clientTools": {"tools": [{"name": ""}]}}),
    _request({"surface": {"current_surface_key": None}}),
    _request(None, _navigate({"surface_key": "https://evil.example.com"})),
    _request(None, _navigate({"surface_key": "settings/team"})),
    _request(None, _navigate({"surface_key": "matters.list\n"})),
    _request(None, _navigate({"surface_key": "home", "url": "https://x.example.com"})),
    _request(None, _navigate({"surface_key": "home", "params": {"id": "a/b"}})),
    _request(None, _navigate({"surface_key": "home", "params": {"id": 1.5}})),
    _request(None, _navigate({})),
    _request(None, _navigate("matters.list")),
    _request(None, {"name": "x", "plane": "server", "params": "https://x.example.com"}),
    _request(None, {"name": "x", "plane": "server", "params": ["a"]}),
    _request(None, {"name": "x", "plane": "edge", "params": {}}),
    _request(None, {"name": "", "plane": "server", "params": {}}),
    _request(None, {"name": "x", "plane": "server"}),
    _request(None, {"name": "x", "plane": "server", "params": {}, "why": "extra"}),
    _request(None, {"name": "query_matters", "plane": "server", "params": {"limit": "10"}}),
    _request(None, {"name": "query_matters", "plane": "server", "params": {"limit": 101}}),
    _request(None, {"name": "query_matters", "plane": "server", "params": {"sql": "drop"}}),
    _request(
        None,
        {
            "name": "propose_matter_write",
            "plane": "server",
            "params": {"matter_id": "m-1", "changes": {}},
        },
    ),
    _request(None, *[_navigate({"surface_key": "home"})] * 33),
    # The bounds of open bags and free JSON (issue 19).
    {"context": {"version": 1, "providers": {}, **{f"f{i}": 1 for i in range(15)}}, "intents": []},
    _request({"deadlines": {f"k{i}": 1 for i in range(65)}}),
    _request(
        {
            "surface": {
                "available_surfaces": [{"surface_key": "home", **{f"k{i}": 1 for i in range(32)}}]
            }
        }
    ),
    _request({"surface": {f"k{i}": 1 for i in range(65)}}),
    _request({"deadlines": {"items": list(range(201))}}),
    _request({"deadlines": {"deep": [[{f"k{i}": 1 for i in range(65)}]]}}),
    _request(None, {"name": "x", "plane": "server", "params": {f"k{i}": 1 for i in range(65)}}),
    _request(None, {"name": "x", "plane": "server", "params": {"a": [list(range(201))]}}),
]


@pytest.mark.parametrize("payload", ACCEPTED)
def test_both_accept(request_validator: Any, payload: dict[str, Any]) -> None:
    assert _openapi_accepts(request_validator, payload)
    assert _contract_accepts(payload)


@pytest.mark.parametrize("payload", REJECTED)
def test_both_reject(request_validator: Any, payload: dict[str, Any]) -> None:
    assert not _openapi_accepts(request_validator, payload)
    assert not _contract_accepts(payload)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=140), st.from_regex(r"[a-z0-9_.-]{1,130}", fullmatch=True)))
def test_surface_keys_agree_everywhere(request_validator: Any, key: str) -> None:
    for payload in (
        _request(None, _navigate({"surface_key": key})),
        _request({"surface": {"available_surfaces": [{"surface_key": key}]}}),
        _request({"surface": {"current_surface_key": key}}),
        _request({"cpc": {"surface_key": key}}),
    ):
        assert _openapi_accepts(request_validator, payload) == _contract_accepts(payload), key


@settings(max_examples=200)
@given(
    st.one_of(
        st.text(max_size=140),
        st.integers(),
        st.booleans(),
        st.floats(allow_nan=False),
        st.none(),
        st.lists(st.integers(), max_size=2),
    )
)
def test_route_values_and_versions_agree(request_validator: Any, value: Any) -> None:
    for payload in (
        _request(None, _navigate({"surface_key": "home", "params": {"id": value}})),
        {"context": {"version": value, "providers": {}}, "intents": []},
        _request(None, {"name": "query_matters", "plane": "server", "params": {"limit": value}}),
    ):
        assert _openapi_accepts(request_validator, payload) == _contract_accepts(payload), value


def test_shared_lists_are_equal(spec: dict[str, Any]) -> None:
    """Known providers, typed tools and intent reasons: one list in both places."""
    schemas = spec["components"]["schemas"]
    assert set(schemas["SessionProviders"]["properties"]) == set(KNOWN_PROVIDERS)
    branches = schemas["AgentToolIntent"]["anyOf"]
    typed = [branch["properties"]["name"]["enum"] for branch in branches[:-1]]
    assert sorted(name for names in typed for name in names) == sorted(TYPED_TOOL_PARAMS)
    untyped = branches[-1]["properties"]["name"]["not"]["enum"]
    assert sorted(untyped) == sorted(TYPED_TOOL_PARAMS)
    for branch in branches[:-1]:
        (name,) = branch["properties"]["name"]["enum"]
        params_ref = branch["properties"]["params"]["$ref"]
        assert params_ref == f"#/components/schemas/{TYPED_TOOL_PARAMS[name].__name__}"
    assert set(schemas["ToolIntentReason"]["enum"]) == INTENT_REASONS


def test_frozen_v1_envelope_is_a_valid_request(request_validator: Any) -> None:
    payload = _frozen()
    assert _openapi_accepts(request_validator, payload)
    assert _contract_accepts(payload)


def test_examples_are_valid(spec: dict[str, Any], request_validator: Any) -> None:
    examples = spec["components"]["examples"]
    turn = examples["SessionResolveTurn"]["value"]
    answer = examples["SessionResolveAnswer"]["value"]
    assert _openapi_accepts(request_validator, turn)
    assert _contract_accepts(turn)
    SessionResolveResponse.model_validate(answer)

    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    openapi = OpenAPI.from_dict(copy.deepcopy(spec), config=config)
    response = MockResponse(
        json.dumps(answer).encode(),
        status_code=200,
        headers={"X-Correlation-Id": "corr-1"},
        content_type="application/json",
    )
    openapi.validate_response(MockRequest("http://localhost", "post", RESOLVE), response)


# ------------------------------------------------------------ additive changes only


def test_snapshot_covers_the_request_response_and_run_context_schemas() -> None:
    snapshot = json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8"))
    assert set(snapshot) == set(SNAPSHOT_SCHEMAS)


def test_schemas_changed_only_additively_since_the_snapshot(spec: dict[str, Any]) -> None:
    """Old clients keep parsing: see tests/support/schema_compat.py for the rules.

    A deliberate breaking change rewrites the snapshot
    (``.venv/bin/python -m tests.support.schema_compat --write``) in a reviewed commit.
    """
    snapshot = json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8"))
    current = current_schemas(spec)
    found = [
        change
        for name in SNAPSHOT_SCHEMAS
        for change in breaking_changes(snapshot[name], current[name], name)
    ]
    assert found == []


def test_a_breaking_edit_of_the_spec_is_caught(spec: dict[str, Any]) -> None:
    """The gate really looks: narrowing the live spec in memory fails it."""
    edited = copy.deepcopy(spec)
    schemas = edited["components"]["schemas"]
    schemas["ToolIntentReason"]["enum"].remove("plane_mismatch")
    schemas["RunContextMessage"]["required"].append("truncated")
    del schemas["SessionResolveResponse"]["properties"]["permissions"]
    schemas["AgentSessionContext"]["additionalProperties"] = False
    snapshot = json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8"))
    current = current_schemas(edited)

    found = {
        change
        for name in SNAPSHOT_SCHEMAS
        for change in breaking_changes(snapshot[name], current[name], name)
    }

    assert "SessionResolveResponse/decisions/items/reason: enum narrowed" in found
    assert "RunContext/trigger_message/allOf/0/truncated: newly required" in found
    assert "RunContextMessage/truncated: newly required" in found
    assert "SessionResolveResponse/permissions: property removed" in found
    assert "SessionResolveRequest/context: closed to unknown fields" in found
