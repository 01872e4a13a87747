"""The boundary of resolveSessionContext: a closed envelope around an open context.

Over HTTP against the real service: an unknown envelope field, params that are not an
object, malformed params of a typed tool, a JSON null and a URL-shaped surface key
anywhere are 422 (``validation_failed``, paths only, no values); unknown tools,
unknown providers, unknown fields inside known providers and higher versions are
accepted; the frozen v1 envelope is still served.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.integration.session_context.conftest import RESOLVE, SessionService

pytestmark = pytest.mark.integration

FROZEN_V1 = (
    Path(__file__).resolve().parents[2]
    / "contract"
    / "snapshots"
    / "session_resolve_request.v1.json"
)
MARK = "boundary-value-9d1c"


def _body(*intents: dict[str, Any], **providers: Any) -> dict[str, Any]:
    return {"context": {"version": 1, "providers": providers}, "intents": list(intents)}


def _unprocessable(response: requests.Response) -> list[dict[str, str]]:
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "validation_failed"
    assert MARK not in response.text
    errors: list[dict[str, str]] = problem["errors"]
    return errors


@pytest.mark.parametrize(
    "body",
    [
        {**_body(), "debug": MARK},
        {**_body(), "permissions": [MARK]},
        {"context": {"version": 1, "providers": {}}},
        {"intents": []},
    ],
    ids=["unknown field", "permissions beside the context", "no intents", "no context"],
)
def test_the_envelope_is_strict(service: SessionService, body: dict[str, Any]) -> None:
    _unprocessable(service.resolve("tok-alex", body))


@pytest.mark.parametrize(
    "params",
    [MARK, f"https://{MARK}.example.com", [MARK], 7, True],
    ids=["string", "url", "list", "number", "boolean"],
)
def test_params_must_be_an_object(service: SessionService, params: Any) -> None:
    body = _body({"name": "forged_tool", "plane": "server", "params": params})
    _unprocessable(service.resolve("tok-alex", body))


@pytest.mark.parametrize(
    "intent",
    [
        {"name": "navigate_to", "plane": "client", "params": {}},
        {"name": "navigate_to", "plane": "client", "params": {"surface_key": "home", "url": MARK}},
        {
            "name": "navigate_to",
            "plane": "client",
            "params": {"surface_key": "home", "params": {"id": f"a/{MARK}"}},
        },
        {"name": "query_matters", "plane": "server", "params": {"limit": "10"}},
        {"name": "query_matters", "plane": "server", "params": {"sql": MARK}},
        {"name": "propose_matter_write", "plane": "server", "params": {"matter_id": "m-1"}},
        {"name": "query_matters", "plane": "edge", "params": {}},
        {"name": "query_matters", "plane": "server", "params": {}, "why": MARK},
    ],
)
def test_malformed_intents_of_typed_tools_are_422(
    service: SessionService, intent: dict[str, Any]
) -> None:
    errors = _unprocessable(service.resolve("tok-alex", _body(intent)))
    assert all(error["path"].startswith("body/intents/0") for error in errors), errors


@pytest.mark.parametrize(
    "providers",
    [
        {"surface": {"available_surfaces": [{"surface_key": f"https://{MARK}.example.com"}]}},
        {"surface": {"available_surfaces": [{"surface_key": "settings/team"}]}},
        {"surface": {"current_surface_key": "matters:list"}},
        {"cpc": {"surface_key": "Matters.List"}},
        {"surface": {"available_surfaces": [{"surface_key": "matters list"}]}},
    ],
)
def test_a_url_shaped_key_anywhere_is_422(
    service: SessionService, providers: dict[str, Any]
) -> None:
    errors = _unprocessable(service.resolve("tok-alex", _body(**providers)))
    assert all(error["path"].startswith("body/context/providers/") for error in errors), errors


@pytest.mark.parametrize(
    "body",
    [
        _body(surface={"current_surface_key": None}),
        _body(kb={"document_ids": None}),
        {"context": {"version": None, "providers": {}}, "intents": []},
    ],
)
def test_json_null_is_422(service: SessionService, body: dict[str, Any]) -> None:
    _unprocessable(service.resolve("tok-alex", body))


def test_a_body_that_is_not_json_is_400(service: SessionService) -> None:
    response = service.client("tok-alex").post(
        RESOLVE, data=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


def test_unknown_tools_are_denied_never_422(service: SessionService) -> None:
    body = _body(
        {"name": "forged_admin_tool", "plane": "server", "params": {"anything": [1, {"x": None}]}},
        {"name": "Weird Name/With:Colons", "plane": "client", "params": {}},
    )

    response = service.resolve("tok-alex", body)

    assert response.status_code == 200, response.text
    assert [(d["name"], d["decision"], d["reason"]) for d in response.json()["decisions"]] == [
        ("forged_admin_tool", "denied", "unknown_tool"),
        ("Weird Name/With:Colons", "denied", "unknown_tool"),
    ]


def test_a_newer_client_with_a_deadlines_provider_is_served(service: SessionService) -> None:
    """Forward compatibility over the wire: version 2, an unknown provider, extra fields."""
    body = {
        "context": {
            "version": 2,
            "session_hint": "new top-level field",
            "providers": {
                "surface": {
                    "layout": "split",
                    "available_surfaces": [
                        {"surface_key": "matters.list", "title": "Matters", "badge": 3},
                        {"surface_key": "deadlines.board", "title": "Deadlines"},
                    ],
                },
                "deadlines": {"items": [{"matter_id": "m-42", "due": "2026-12-01"}]},
                "calendar": {"events": []},
            },
        },
        "intents": [
            {"name": "navigate_to", "plane": "client", "params": {"surface_key": "deadlines.board"}}
        ],
    }

    response = service.resolve("tok-alex", body)

    assert response.status_code == 200, response.text
    answer = response.json()
    # deadlines.board has no registry entry yet: not reachable, whatever the client says.
    assert answer["reachable_surfaces"] == [
        {"surface_key": "matters.list", "required_permission": "matters:read"}
    ]
    assert answer["decisions"][0]["reason"] == "not_reachable"


def test_a_minimal_v1_client_is_served(service: SessionService) -> None:
    response = service.resolve(
        "tok-alex", {"context": {"version": 1, "providers": {}}, "intents": []}
    )

    assert response.status_code == 200, response.text
    assert response.json() == {
        "permissions": ["matters:read"],
        "reachable_surfaces": [],
        "decisions": [],
    }


def test_the_frozen_v1_envelope_is_still_served(service: SessionService) -> None:
    payload = json.loads(FROZEN_V1.read_text(encoding="utf-8"))

    response = service.resolve("tok-alex", payload)

    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["permissions"] == ["matters:read"]
    assert [(d["name"], d["decision"], d.get("reason")) for d in answer["decisions"]] == [
        ("navigate_to", "accepted", None),
        ("open_matter_panel", "accepted", None),
        ("query_matters", "accepted", None),
        ("propose_matter_write", "denied", "missing_permission"),
    ]
