"""Admin facts API: every endpoint changes the world for the next request (owners only)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def _new_id() -> str:
    return str(uuid.uuid4())


def _fill(template: str, ids: dict[str, str]) -> str:
    """Replace ``{key}`` placeholders by the ids of the loaded world."""
    return re.sub(r"\{([^}]+)\}", lambda match: ids[match.group(1)], template)


def _grant(subject: str, target_kind: str, target: str, level: str) -> dict[str, Any]:
    return {
        "subject": {"kind": "principal", "id": subject},
        "target": {"kind": target_kind, "id": target},
        "level": level,
    }


# ------------------------------------------------------------------ grants


def test_a_created_grant_lets_the_grantee_list_and_its_deletion_takes_it_back(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, newbie = service.client("tok-robin"), service.client("tok-newbie")
    general = messages_path(ids["support/general"])
    assert newbie.get(general).status_code == 404

    created = robin.post(
        "/api/v1/admin/grants",
        json=_grant(ids["newbie"], "channel", ids["support/general"], "read"),
    )

    assert created.status_code == 201
    grant = created.json()
    assert grant["subject"] == {"kind": "principal", "id": ids["newbie"]}
    assert grant["target"] == {"kind": "channel", "id": ids["support/general"]}
    assert grant["level"] == "read"
    assert "expires_at" not in grant
    assert newbie.get(general).status_code == 200
    assert newbie.post(general, json={"content_md": "x"}).json()["reason"] == "no_grant"

    deleted = robin.delete(f"/api/v1/admin/grants/{grant['id']}")

    assert deleted.status_code == 204
    assert deleted.content == b""
    assert newbie.get(general).status_code == 404
    assert robin.delete(f"/api/v1/admin/grants/{grant['id']}").status_code == 404


def test_a_space_grant_covers_every_channel_of_the_space(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, newbie = service.client("tok-robin"), service.client("tok-newbie")

    created = robin.post(
        "/api/v1/admin/grants", json=_grant(ids["newbie"], "space", ids["support"], "write")
    )

    assert created.status_code == 201
    for channel in ("support/general", "support/other"):
        assert (
            newbie.post(messages_path(ids[channel]), json={"content_md": "hello"}).status_code
            == 201
        )
    assert newbie.get(messages_path(ids["marketing/campaigns"])).status_code == 404


def test_an_expired_grant_is_stored_but_gives_nothing(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    body = {
        **_grant(ids["newbie"], "channel", ids["support/general"], "manage"),
        "expires_at": "2020-01-01T00:00:00Z",
    }

    created = service.client("tok-robin").post("/api/v1/admin/grants", json=body)

    assert created.status_code == 201
    assert created.json()["expires_at"] == "2020-01-01T00:00:00Z"
    assert (
        service.client("tok-newbie").get(messages_path(ids["support/general"])).status_code == 404
    )


# ------------------------------------------------------------------ principals


def test_a_disabled_person_gets_404_on_lists_until_reactivated(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, sam = service.client("tok-robin"), service.client("tok-sam")
    general = messages_path(ids["support/general"])
    assert sam.get(general).status_code == 200

    disabled = robin.patch(f"/api/v1/admin/principals/{ids['sam']}", json={"status": "disabled"})

    assert disabled.status_code == 200
    assert disabled.json() == {
        "id": ids["sam"],
        "kind": "user",
        "status": "disabled",
        "is_owner": False,
    }
    assert sam.get(general).status_code == 404
    assert sam.post(general, json={"content_md": "x"}).status_code == 404

    robin.patch(f"/api/v1/admin/principals/{ids['sam']}", json={"status": "active"})

    assert sam.get(general).status_code == 200


def test_a_disabled_owner_loses_the_admin_api(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    assert (
        robin.patch(
            f"/api/v1/admin/principals/{ids['robin']}", json={"status": "disabled"}
        ).status_code
        == 200
    )

    again = robin.patch(f"/api/v1/admin/principals/{ids['robin']}", json={"status": "active"})
    assert again.status_code == 403
    assert again.json()["reason"] == "not_owner"


# ------------------------------------------------------------------ spaces and channels


def test_an_archived_space_caps_every_channel_at_read(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, alex = service.client("tok-robin"), service.client("tok-alex")
    general = messages_path(ids["support/general"])

    archived = robin.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": True})

    assert archived.status_code == 200
    assert archived.json() == {"id": ids["support"], "archived": True}
    refused = alex.post(general, json={"content_md": "x"})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "archived"
    assert alex.get(general).status_code == 200

    restored = robin.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": False})

    assert restored.json() == {"id": ids["support"], "archived": False}
    assert alex.post(general, json={"content_md": "x"}).status_code == 201


def test_channel_switches_change_and_others_stay(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    path = f"/api/v1/admin/channels/{ids['support/other']}"

    switched = robin.patch(
        path,
        json={
            "history_backfill_limit": 7,
            "auto_thread": True,
            "allow_mentioned_agents": True,
            "operator_agent_id": ids["texter"],
        },
    )

    assert switched.status_code == 200
    assert switched.json() == {
        "id": ids["support/other"],
        "space_id": ids["support"],
        "kind": "regular",
        "archived": False,
        "history_backfill_limit": 7,
        "operator_agent_id": ids["texter"],
        "allow_mentioned_agents": True,
        "auto_thread": True,
    }

    archived = robin.patch(path, json={"archived": True})

    assert archived.json() == {**switched.json(), "archived": True}
    refused = robin.post(messages_path(ids["support/other"]), json={"content_md": "x"})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "archived"

    robin.patch(path, json={"archived": False})

    assert (
        robin.post(messages_path(ids["support/other"]), json={"content_md": "x"}).status_code == 201
    )


# ------------------------------------------------------------------ threads


def test_a_moved_thread_is_listed_under_its_new_channel(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    moved = robin.post(
        f"/api/v1/admin/threads/{ids['t1']}/move", json={"channel_id": ids["support/other"]}
    )

    assert moved.status_code == 200
    assert moved.json() == {
        "id": ids["t1"],
        "channel_id": ids["support/other"],
        "kind": "thread",
        "parent_message_id": ids["m1"],
    }
    there = robin.get(messages_path(ids["support/other"]), params={"parent_message_id": ids["m1"]})
    assert [m["id"] for m in there.json()["items"]] == [ids["m4"], ids["m5"], ids["m6"]]
    assert {m["channel_id"] for m in there.json()["items"]} == {ids["support/other"]}
    assert (
        robin.get(
            messages_path(ids["support/general"]), params={"parent_message_id": ids["m1"]}
        ).status_code
        == 404
    )
    # Sam holds trigger on support/general only: the moved thread is out of his sight.
    assert (
        service.client("tok-sam")
        .get(messages_path(ids["support/other"]), params={"parent_message_id": ids["m1"]})
        .status_code
        == 404
    )


def test_a_main_thread_cannot_move(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-robin").post(
        f"/api/v1/admin/threads/{ids['support/general#main']}/move",
        json={"channel_id": ids["support/other"]},
    )

    assert response.status_code in (409, 422)
    assert (
        service.client("tok-robin")
        .get(messages_path(ids["support/general"]))
        .json()["items"][0]["id"]
        == ids["m1"]
    )


# ------------------------------------------------------------------ runs and follow-ups


def test_a_created_run_serves_its_context_until_it_succeeds(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, lotse = service.client("tok-robin"), service.client("tok-lotse")

    created = robin.post(
        "/api/v1/admin/runs",
        json={
            "thread_id": ids["t1"],
            "agent_id": ids["lotse"],
            "session_id": ids["s1"],
            "triggering_message_id": ids["m5"],
            "triggered_by": ids["writer"],
        },
    )

    assert created.status_code == 201
    run = created.json()
    assert {
        k: run[k]
        for k in (
            "thread_id",
            "agent_id",
            "agent_session_id",
            "trigger_kind",
            "triggering_message_id",
            "triggered_by",
            "state",
        )
    } == {
        "thread_id": ids["t1"],
        "agent_id": ids["lotse"],
        "agent_session_id": ids["s1"],
        "trigger_kind": "message",
        "triggering_message_id": ids["m5"],
        "triggered_by": ids["writer"],
        "state": "queued",
    }
    context = lotse.get(f"/api/v1/runs/{run['id']}/context")
    assert context.status_code == 200
    assert context.json()["trigger_message"]["message_id"] == ids["m5"]

    running = robin.patch(f"/api/v1/admin/runs/{run['id']}", json={"state": "running"})
    assert running.json()["state"] == "running"
    assert lotse.get(f"/api/v1/runs/{run['id']}/context").status_code == 200
    done = robin.patch(f"/api/v1/admin/runs/{run['id']}", json={"state": "succeeded"})

    assert done.status_code == 200
    assert done.json() == {**run, "state": "succeeded"}
    assert lotse.get(f"/api/v1/runs/{run['id']}/context").status_code == 404


def test_a_follow_up_is_created_pending_and_changes_state(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    created = robin.post(
        "/api/v1/admin/followups", json={"run_id": ids["r1"], "message_id": ids["m5"]}
    )

    assert created.status_code == 201
    followup = created.json()
    assert followup == {
        "id": followup["id"],
        "run_id": ids["r1"],
        "message_id": ids["m5"],
        "state": "pending",
    }
    for state in ("delivered", "absorbed", "dropped"):
        updated = robin.patch(f"/api/v1/admin/followups/{followup['id']}", json={"state": state})
        assert updated.status_code == 200
        assert updated.json() == {**followup, "state": state}


# ------------------------------------------------------------------ sessions


def test_a_session_reset_then_bind_replaces_the_current_session(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    path = f"/api/v1/admin/threads/{ids['t1']}/session"

    reset = robin.post(path, json={"mode": "reset"})

    assert reset.status_code == 200
    first = reset.json()
    assert first["id"] != ids["s1"]
    assert (first["thread_id"], first["agent_id"], first["is_current"], first["started"]) == (
        ids["t1"],
        ids["lotse"],
        True,
        False,
    )

    bound = robin.post(path, json={"mode": "bind", "agent_id": ids["texter"]})

    second = bound.json()
    assert second["id"] not in (first["id"], ids["s1"])
    assert (second["agent_id"], second["is_current"], second["started"]) == (
        ids["texter"],
        True,
        True,
    )
    current = sql(
        "SELECT id::text FROM agent_sessions WHERE thread_id = CAST(:t AS uuid) AND is_current",
        t=ids["t1"],
    )
    assert current == [(second["id"],)]
    # The new session is usable by the admin API at once.
    run = robin.post(
        "/api/v1/admin/runs",
        json={
            "thread_id": ids["t1"],
            "agent_id": ids["texter"],
            "session_id": second["id"],
            "triggering_message_id": ids["m6"],
            "triggered_by": ids["alex"],
        },
    )
    assert run.status_code == 201
    assert run.json()["agent_session_id"] == second["id"]


# ------------------------------------------------------------------ messages


def test_a_deleted_message_is_listed_as_a_tombstone(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    deleted = robin.delete(f"/api/v1/admin/messages/{ids['m2']}")

    assert deleted.status_code == 204
    items = {m["id"]: m for m in robin.get(messages_path(ids["support/general"])).json()["items"]}
    assert items[ids["m2"]]["deleted"] is True
    assert items[ids["m2"]]["content_md"] == ""
    assert items[ids["m2"]]["thread_seq"] == 2
    assert items[ids["m1"]]["deleted"] is False
    assert items[ids["m1"]]["content_md"] != ""
    assert robin.delete(f"/api/v1/admin/messages/{ids['m2']}").status_code == 204


# ------------------------------------------------------------------ denials


def _every_admin_call(ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any] | None]]:
    any_id = _new_id()
    return [
        ("POST", "/api/v1/admin/grants", _grant(ids["alex"], "space", ids["marketing"], "manage")),
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
            _grant(unknown, "channel", ids["support/general"], "read"),
            "body/subject/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            {
                **_grant(ids["sam"], "channel", ids["support/general"], "read"),
                "subject": {"kind": "group", "id": unknown},
            },
            "body/subject/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            _grant(ids["sam"], "space", unknown, "read"),
            "body/target/id",
        ),
        (
            "POST",
            "/api/v1/admin/grants",
            _grant(ids["sam"], "channel", unknown, "read"),
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
