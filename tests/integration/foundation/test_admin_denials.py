"""Admin facts API refusals: non-owners, unknown ids and bodies; the world stays unchanged."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.integration.foundation.api_calls import grant_body

pytestmark = pytest.mark.integration


def _new_id() -> str:
    return str(uuid.uuid4())


def _fill(template: str, ids: dict[str, str]) -> str:
    """Replace ``{key}`` placeholders by the ids of the loaded world."""
    return re.sub(r"\{([^}]+)\}", lambda match: ids[match.group(1)], template)


def _every_admin_call(ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any] | None]]:
    any_id = _new_id()
    return [
        (
            "POST",
            "/api/v1/admin/grants",
            grant_body(ids["alex"], "space", ids["marketing"], "manage"),
        ),
        ("DELETE", f"/api/v1/admin/grants/{ids['g-sam-general']}", None),
        ("PATCH", f"/api/v1/admin/principals/{ids['sam']}", {"status": "disabled"}),
        ("PATCH", f"/api/v1/admin/spaces/{ids['support']}", {"archived": True}),
        ("PATCH", f"/api/v1/admin/channels/{ids['support/general']}", {"archived": True}),
        ("POST", f"/api/v1/admin/threads/{ids['t1']}/move", {"channel_id": ids["support/other"]}),
        (
            "POST",
            "/api/v1/admin/runs",
            {"thread_id": ids["t1"], "agent_id": ids["lotse"], "triggering_message_id": ids["m5"]},
        ),
        ("PATCH", f"/api/v1/admin/runs/{ids['r1']}", {"state": "cancelled"}),
        ("POST", "/api/v1/admin/followups", {"run_id": ids["r1"], "message_id": ids["m5"]}),
        ("PATCH", f"/api/v1/admin/followups/{any_id}", {"state": "dropped"}),
        ("POST", f"/api/v1/admin/threads/{ids['t1']}/session", {"mode": "reset"}),
        ("DELETE", f"/api/v1/admin/messages/{ids['m1']}", None),
    ]


WORLD_STATE = """
    SELECT (SELECT count(*) FROM grants), (SELECT count(*) FROM runs),
           (SELECT count(*) FROM run_followups), (SELECT count(*) FROM agent_sessions),
           (SELECT string_agg(status, ',' ORDER BY id) FROM principals),
           (SELECT count(*) FROM spaces WHERE archived_at IS NOT NULL),
           (SELECT count(*) FROM channels WHERE archived_at IS NOT NULL),
           (SELECT string_agg(channel_id::text, ',' ORDER BY id) FROM threads),
           (SELECT string_agg(state, ',' ORDER BY id) FROM runs),
           (SELECT count(*) FROM messages WHERE deleted_at IS NOT NULL)
"""


@pytest.mark.parametrize("token", ["tok-alex", "tok-texter", "tok-importer"])
def test_every_admin_endpoint_refuses_a_non_owner_with_not_owner(
    make_service: Any, ids: dict[str, str], sql: Any, token: str
) -> None:
    service = make_service()
    client = service.client(token)
    before = sql(WORLD_STATE)

    for method, path, body in _every_admin_call(ids):
        kwargs = {} if body is None else {"json": body}
        response = client.request(method, path, **kwargs)
        assert response.status_code == 403, (method, path)
        assert response.json()["code"] == "forbidden"
        assert response.json()["reason"] == "not_owner"

    assert sql(WORLD_STATE) == before
    assert sql("SELECT action, reason, count FROM audit_log ORDER BY action") == sorted(
        (action, "not_owner", 1)
        for action in (
            "admin.grants.create",
            "admin.grants.delete",
            "admin.principals.update",
            "admin.spaces.update",
            "admin.channels.update",
            "admin.threads.move",
            "admin.runs.create",
            "admin.runs.update",
            "admin.followups.create",
            "admin.followups.update",
            "admin.sessions.set",
            "admin.messages.delete",
        )
    )


def test_every_admin_endpoint_answers_404_for_an_unknown_path_id(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    unknown = _new_id()
    before = sql(WORLD_STATE)
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("DELETE", f"/api/v1/admin/grants/{unknown}", None),
        ("PATCH", f"/api/v1/admin/principals/{unknown}", {"status": "disabled"}),
        ("PATCH", f"/api/v1/admin/spaces/{unknown}", {"archived": True}),
        ("PATCH", f"/api/v1/admin/channels/{unknown}", {"auto_thread": True}),
        ("POST", f"/api/v1/admin/threads/{unknown}/move", {"channel_id": ids["support/other"]}),
        ("PATCH", f"/api/v1/admin/runs/{unknown}", {"state": "cancelled"}),
        ("PATCH", f"/api/v1/admin/followups/{unknown}", {"state": "dropped"}),
        ("POST", f"/api/v1/admin/threads/{unknown}/session", {"mode": "reset"}),
        ("DELETE", f"/api/v1/admin/messages/{unknown}", None),
    ]

    for method, path, body in calls:
        kwargs = {} if body is None else {"json": body}
        response = robin.request(method, path, **kwargs)
        assert response.status_code == 404, (method, path)
        assert response.json()["code"] == "not_found"

    assert sql(WORLD_STATE) == before


def test_unknown_references_in_admin_bodies_answer_422_naming_the_field(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    unknown = _new_id()
    before = sql(WORLD_STATE)
    calls: list[tuple[str, str, dict[str, Any], str]] = [
        (
            "POST",
            "/api/v1/admin/grants",
            grant_body(unknown, "channel", ids["support/general"], "read"),
            "body/subject/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            {
                **grant_body(ids["sam"], "channel", ids["support/general"], "read"),
                "subject": {"kind": "group", "id": unknown},
            },
            "body/subject/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            grant_body(ids["sam"], "space", unknown, "read"),
            "body/target/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            grant_body(ids["sam"], "channel", unknown, "read"),
            "body/target/id",
        ),
        (
            "PATCH",
            f"/api/v1/admin/channels/{ids['support/other']}",
            {"operator_agent_id": unknown},
            "body/operator_agent_id",
        ),
        (
            "POST",
            f"/api/v1/admin/threads/{ids['t1']}/move",
            {"channel_id": unknown},
            "body/channel_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {"thread_id": unknown, "agent_id": ids["lotse"], "triggering_message_id": ids["m5"]},
            "body/thread_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {"thread_id": ids["t1"], "agent_id": unknown, "triggering_message_id": ids["m5"]},
            "body/agent_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {"thread_id": ids["t1"], "agent_id": ids["alex"], "triggering_message_id": ids["m5"]},
            "body/agent_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {
                "thread_id": ids["t1"],
                "agent_id": ids["lotse"],
                "session_id": unknown,
                "triggering_message_id": ids["m5"],
            },
            "body/session_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {
                "thread_id": ids["support/general#main"],
                "agent_id": ids["lotse"],
                "session_id": ids["s1"],
                "triggering_message_id": ids["m1"],
            },
            "body/session_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {"thread_id": ids["t1"], "agent_id": ids["lotse"], "triggering_message_id": unknown},
            "body/triggering_message_id",
        ),
        (
            "POST",
            "/api/v1/admin/runs",
            {
                "thread_id": ids["t1"],
                "agent_id": ids["lotse"],
                "triggering_message_id": ids["m5"],
                "triggered_by": unknown,
            },
            "body/triggered_by",
        ),
        (
            "POST",
            "/api/v1/admin/followups",
            {"run_id": unknown, "message_id": ids["m5"]},
            "body/run_id",
        ),
        (
            "POST",
            "/api/v1/admin/followups",
            {"run_id": ids["r1"], "message_id": unknown},
            "body/message_id",
        ),
        (
            "POST",
            f"/api/v1/admin/threads/{ids['t1']}/session",
            {"mode": "bind", "agent_id": unknown},
            "body/agent_id",
        ),
        (
            "POST",
            f"/api/v1/admin/threads/{ids['t1']}/session",
            {"mode": "bind", "agent_id": ids["sam"]},
            "body/agent_id",
        ),
    ]

    for method, path, body, field in calls:
        response = robin.request(method, path, json=body)
        assert response.status_code == 422, (method, path, field)
        problem = response.json()
        assert problem["code"] == "validation_failed"
        assert [error["path"] for error in problem["errors"]] == [field], (path, field)

    assert sql(WORLD_STATE) == before


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/admin/grants", {"subject": {"kind": "principal"}, "level": "read"}),
        (
            "POST",
            "/api/v1/admin/grants",
            {
                "subject": {"kind": "role", "id": str(uuid.uuid4())},
                "target": {"kind": "space", "id": str(uuid.uuid4())},
                "level": "read",
            },
        ),
        ("PATCH", "/api/v1/admin/principals/{sam}", {"status": "gone"}),
        ("PATCH", "/api/v1/admin/spaces/{support}", {"archived": "yes"}),
        ("PATCH", "/api/v1/admin/channels/{support/other}", {}),
        ("PATCH", "/api/v1/admin/channels/{support/other}", {"history_backfill_limit": -1}),
        ("PATCH", "/api/v1/admin/runs/{r1}", {"state": "paused"}),
        ("POST", "/api/v1/admin/threads/{t1}/session", {"mode": "resume"}),
        ("POST", "/api/v1/admin/runs", {"thread_id": "{t1}", "agent_id": "{lotse}", "extra": 1}),
    ],
)
def test_schema_invalid_admin_bodies_answer_422(
    make_service: Any, ids: dict[str, str], method: str, path: str, body: dict[str, Any]
) -> None:
    service = make_service()
    resolved_path = _fill(path, ids)
    resolved = {
        key: _fill(value, ids) if isinstance(value, str) else value for key, value in body.items()
    }

    response = service.client("tok-robin").request(method, resolved_path, json=resolved)

    assert response.status_code == 422
    assert response.json()["code"] == "validation_failed"
