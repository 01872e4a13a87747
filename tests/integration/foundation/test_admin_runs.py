"""Admin facts API, runs, follow-ups and sessions: each change is seen by the next request."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.integration


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
