"""resolveSessionContext over HTTP against the real PostgreSQL and OPA (decisions.md S3).

Every row of the seed's decision table (decisions.md S3-16), the tampered tab, the
server-owned registry being stricter than the seed (decisions.md S3-2: an unknown
surface key is never reachable, the client's ``required_permission`` is ignored), who
may call, and that the policies, the app and the spec share one list of reasons. Every
response is validated against the spec.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from agent_sdk.contracts import INTENT_REASONS, SessionResolveResponse
from app.http.routes import load_spec
from app.policy import REASONS
from tests.integration.session_context.conftest import SessionService

pytestmark = pytest.mark.integration

SURFACES = [
    {"surface_key": "home", "title": "Home"},
    {"surface_key": "matters.list", "title": "Matters"},
    {"surface_key": "matters.detail", "title": "Matter"},
    {"surface_key": "settings.team", "title": "Team settings"},
]


def _body(
    *intents: dict[str, Any], surfaces: list[dict[str, Any]] | None = None, **providers: Any
) -> dict[str, Any]:
    listed = SURFACES if surfaces is None else surfaces
    return {
        "context": {
            "version": 1,
            "providers": {"surface": {"available_surfaces": listed}, **providers},
        },
        "intents": list(intents),
    }


def _navigate(surface_key: str, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"surface_key": surface_key}
    if params:
        body["params"] = params
    return {"name": "navigate_to", "plane": "client", "params": body}


def _tool(name: str, plane: str = "server", **params: Any) -> dict[str, Any]:
    return {"name": name, "plane": plane, "params": params}


def _ok(response: requests.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    SessionResolveResponse.model_validate(body)
    return body


def _decisions(response: requests.Response) -> list[tuple[str, str | None]]:
    return [(d["decision"], d.get("reason")) for d in _ok(response)["decisions"]]


# --------------------------------------- the seed's decision table (decisions.md S3-16)


def test_navigate_to_a_reachable_surface_is_accepted(service: SessionService) -> None:
    response = service.resolve("tok-alex", _body(_navigate("matters.detail", matter_id="m-42")))
    assert _decisions(response) == [("accepted", None)]


def test_navigate_to_a_filtered_out_surface_is_denied_not_reachable(
    service: SessionService,
) -> None:
    response = service.resolve("tok-alex", _body(_navigate("settings.team")))
    assert _decisions(response) == [("denied", "not_reachable")]


@pytest.mark.parametrize(
    "target",
    ["https://evil.example.com/settings", "/settings/team", "javascript:alert(1)", "Settings"],
)
def test_navigate_to_with_a_raw_url_is_422_at_the_boundary(
    service: SessionService, target: str
) -> None:
    response = service.resolve("tok-alex", _body(_navigate(target)))

    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "validation_failed"
    assert target not in response.text


@pytest.mark.parametrize(
    ("token", "expected"),
    [("tok-alex", ("accepted", None)), ("tok-robin", ("denied", "missing_permission"))],
)
def test_query_matters_is_accepted_only_with_matters_read(
    service: SessionService, token: str, expected: tuple[str, str | None]
) -> None:
    response = service.resolve(token, _body(_tool("query_matters", query="overdue", limit=5)))
    assert _decisions(response) == [expected]


def test_propose_matter_write_is_denied_for_a_read_only_caller(service: SessionService) -> None:
    intent = _tool("propose_matter_write", matter_id="m-42", changes={"status": "closed"})

    assert _decisions(service.resolve("tok-alex", _body(intent))) == [
        ("denied", "missing_permission")
    ]
    assert _decisions(service.resolve("tok-sam", _body(intent))) == [("accepted", None)]


def test_a_forged_admin_tool_is_denied_unknown_tool_fail_closed(service: SessionService) -> None:
    body = _body(
        _tool("forged_admin_tool", member="robin"),
        _tool("settings.team.delete_member", plane="client"),
        clientTools={
            "tools": [{"name": "forged_admin_tool"}, {"name": "settings.team.delete_member"}]
        },
    )

    response = service.resolve("tok-sam", body)

    assert _decisions(response) == [("denied", "unknown_tool"), ("denied", "unknown_tool")]


# ------------------------------------------------------------ orientation, not authority


def test_a_tab_claiming_settings_write_gets_nothing(service: SessionService) -> None:
    """decisions.md S3-1: the server re-derives the grants; the tampered block is ignored."""
    claimed = [{**entry, "required_permission": "matters:read"} for entry in SURFACES]
    body = _body(
        _navigate("settings.team"),
        _tool("update_team_settings", member="sam"),
        _tool("propose_matter_write", matter_id="m-42", changes={"owner": "alex"}),
        surfaces=claimed,
        permissions={"granted": ["settings:write", "matters:write", "admin:*"]},
    )

    answer = _ok(service.resolve("tok-alex", body))

    assert answer["permissions"] == ["matters:read"]
    assert [s["surface_key"] for s in answer["reachable_surfaces"]] == [
        "home",
        "matters.list",
        "matters.detail",
    ]
    assert [(d["decision"], d.get("reason")) for d in answer["decisions"]] == [
        ("denied", "not_reachable"),
        ("denied", "unknown_tool"),
        ("denied", "missing_permission"),
    ]


def test_the_answer_carries_real_grants_and_registry_permissions(service: SessionService) -> None:
    answer = _ok(service.resolve("tok-sam", _body()))

    assert answer == {
        "permissions": ["matters:read", "matters:write"],
        "reachable_surfaces": [
            {"surface_key": "home"},
            {"surface_key": "matters.list", "required_permission": "matters:read"},
            {"surface_key": "matters.detail", "required_permission": "matters:read"},
        ],
        "decisions": [],
    }


def test_a_person_without_permissions_reaches_public_surfaces_only(service: SessionService) -> None:
    answer = _ok(service.resolve("tok-robin", _body(_navigate("home"), _navigate("matters.list"))))

    assert answer["permissions"] == []
    assert answer["reachable_surfaces"] == [{"surface_key": "home"}]
    assert [d["decision"] for d in answer["decisions"]] == ["accepted", "denied"]


def test_an_unknown_surface_key_is_never_reachable_whatever_the_client_claims(
    service: SessionService,
) -> None:
    """decisions.md S3-2: no registry entry, no reach (no trust in the client)."""
    surfaces = [
        {"surface_key": "reports.secret"},
        {"surface_key": "reports.public", "required_permission": "matters:read"},
    ]

    answer = _ok(service.resolve("tok-sam", _body(_navigate("reports.secret"), surfaces=surfaces)))

    assert answer["reachable_surfaces"] == []
    assert answer["decisions"][0]["reason"] == "not_reachable"


def test_navigate_to_needs_the_target_among_the_clients_listed_surfaces(
    service: SessionService,
) -> None:
    body = _body(_navigate("matters.list"), surfaces=[{"surface_key": "home"}])
    assert _decisions(service.resolve("tok-sam", body)) == [("denied", "not_reachable")]


def test_planes_and_client_tools_are_decided_by_the_registry(service: SessionService) -> None:
    body = _body(
        _tool("query_matters", plane="client"),
        {"name": "navigate_to", "plane": "server", "params": {"surface_key": "home"}},
        _tool("open_matter_panel", plane="client", matter_id="m-42"),
    )

    assert _decisions(service.resolve("tok-alex", body)) == [
        ("denied", "plane_mismatch"),
        ("denied", "plane_mismatch"),
        ("accepted", None),
    ]
    assert _decisions(service.resolve("tok-robin", body))[2] == ("denied", "missing_permission")


def test_decisions_follow_the_order_of_the_intents_and_surfaces_are_distinct(
    service: SessionService,
) -> None:
    surfaces = [*SURFACES, {"surface_key": "home"}, {"surface_key": "matters.list"}]
    intents = [
        _tool("forged_admin_tool"),
        _navigate("matters.list"),
        _tool("propose_matter_write", matter_id="m-1", changes={"a": 1}),
        _navigate("settings.team"),
        _tool("query_matters"),
        _navigate("home"),
    ]

    answer = _ok(service.resolve("tok-alex", _body(*intents, surfaces=surfaces)))

    assert [(d["name"], d["plane"]) for d in answer["decisions"]] == [
        (i["name"], i["plane"]) for i in intents
    ]
    assert [(d["decision"], d.get("reason")) for d in answer["decisions"]] == [
        ("denied", "unknown_tool"),
        ("accepted", None),
        ("denied", "missing_permission"),
        ("denied", "not_reachable"),
        ("accepted", None),
        ("accepted", None),
    ]
    assert [s["surface_key"] for s in answer["reachable_surfaces"]] == [
        "home",
        "matters.list",
        "matters.detail",
    ]


def test_grants_are_read_from_the_session_on_every_turn(service: SessionService) -> None:
    """A permission granted or revoked between turns counts at the next turn."""
    robin = service.ids["robin"]
    intent = _tool("query_matters")
    assert _decisions(service.resolve("tok-robin", _body(intent))) == [
        ("denied", "missing_permission")
    ]
    service.sql(
        "INSERT INTO principal_permissions (principal_id, permission) VALUES (%s, 'matters:read')",
        (robin,),
    )
    try:
        answer = _ok(service.resolve("tok-robin", _body(intent)))
        assert answer["permissions"] == ["matters:read"]
        assert answer["decisions"][0]["decision"] == "accepted"
    finally:
        service.sql("DELETE FROM principal_permissions WHERE principal_id = %s", (robin,))
    assert _decisions(service.resolve("tok-robin", _body(intent))) == [
        ("denied", "missing_permission")
    ]


# ------------------------------------------------------------ who may resolve


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("tok-lotse", "subject_kind_not_allowed"),
        ("tok-importer", "subject_kind_not_allowed"),
        ("tok-writer", "inactive"),
    ],
)
def test_only_active_people_may_resolve(service: SessionService, token: str, reason: str) -> None:
    response = service.resolve(token, _body(_tool("query_matters")))

    assert response.status_code == 403
    assert (response.json()["code"], response.json()["reason"]) == ("forbidden", reason)


def test_without_a_token_401(service: SessionService) -> None:
    response = service.resolve(None, _body())
    assert response.status_code == 401
    assert service.resolve("tok-nobody", _body()).status_code == 401


def test_explain_shows_the_same_caller_decision(service: SessionService) -> None:
    for subject, expected in (
        ("alex", {"allow": True, "reason": "allowed", "status": 200}),
        ("lotse", {"allow": False, "reason": "subject_kind_not_allowed", "status": 403}),
        ("writer", {"allow": False, "reason": "inactive", "status": 403}),
    ):
        response = service.client("tok-robin").post(
            "/api/v1/authz/explain",
            json={
                "actor_id": service.ids[subject],
                "action": "session_context.resolve",
                "resource": {"kind": "instance"},
            },
        )
        assert response.status_code == 200, response.text
        assert response.json()["decision"] == expected


# ------------------------------------------------------------ one list of reasons


def test_policies_app_contracts_and_spec_share_the_reason_lists(service: SessionService) -> None:
    def data(path: str) -> Any:
        answer = requests.get(f"{service.opa.url}/v1/data/{path}", timeout=10)
        answer.raise_for_status()
        return answer.json()["result"]

    schemas = load_spec()["components"]["schemas"]
    assert set(data("sessioncontext/reasons")) == INTENT_REASONS
    assert set(schemas["ToolIntentReason"]["enum"]) == INTENT_REASONS
    assert set(data("authz/results/reasons")) == REASONS
    assert "session_context.resolve" in data("authz/actions")
