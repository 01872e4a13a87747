"""Session bindings: durable, keyed by the runner's enrolment, fail closed.

decisions.md S2-T2 and C4: unknown and stopped sessions (distinct in the test, the same
answer), reload keeps the binding, re-enrolment drops stale bindings, another
runner's session id, a binding without a resolvable account, and bindings that
survive a restart of the app.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
import requests

from tests.support.client import comparable
from tests.support.comms_world import CommsWorld, comms_world
from tests.support.run_context_world import audit_rows

pytestmark = pytest.mark.integration

Start = Callable[..., CommsWorld]


def _list(world: CommsWorld, session_id: str, runner: str = "runner-a") -> requests.Response:
    return world.relay(session_id, world.list_call("c1"), runner)


def test_unknown_stopped_stale_and_foreign_sessions_answer_the_same_404(
    start_comms: Start,
) -> None:
    world = start_comms()
    runner_a = world.runner("runner-a")
    assert _list(world, "sess-2").status_code == 200

    unknown = _list(world, "sess-never-seen")
    assert runner_a.delete("/api/v1/runner/sessions/sess-2").status_code == 204
    stopped = _list(world, "sess-2")
    foreign = _list(world, "sess-b1", runner="runner-a")
    assert _list(world, "sess-b1", runner="runner-b").status_code == 200
    # The re-enrolment of runner-b makes its session stale.
    assert world.runner("runner-b").post("/api/v1/runner/enroll").status_code == 200
    stale = _list(world, "sess-b1", runner="runner-b")

    assert unknown.status_code == 404
    assert comparable(stopped) == comparable(unknown)
    assert comparable(foreign) == comparable(unknown)
    assert comparable(stale) == comparable(unknown)


def test_a_stopped_session_is_gone_for_reload_stop_and_relay(start_comms: Start, sql: Any) -> None:
    world = start_comms()
    runner = world.runner()

    assert runner.delete("/api/v1/runner/sessions/sess-1").status_code == 204

    assert runner.delete("/api/v1/runner/sessions/sess-1").status_code == 404
    assert runner.post("/api/v1/runner/sessions/sess-1/reload").status_code == 404
    assert _list(world, "sess-1").status_code == 404
    assert sql("SELECT 1 FROM session_bindings WHERE session_id = 'sess-1'") == []


def test_a_reload_keeps_the_binding(start_comms: Start) -> None:
    world = start_comms()

    reloaded = world.runner().post("/api/v1/runner/sessions/sess-1/reload")

    assert reloaded.status_code == 200
    assert reloaded.json() == {"container_name": "ws-a1", "session_id": "sess-1", "state": "bound"}
    assert _list(world, "sess-1").status_code == 200


def test_re_enrolment_drops_every_binding_so_a_re_minted_id_fails_closed(
    start_comms: Start,
) -> None:
    world = start_comms()
    runner = world.runner()

    enrolled = runner.post("/api/v1/runner/enroll")

    assert enrolled.status_code == 200
    assert enrolled.json()["enrollment_epoch"] == 2
    assert enrolled.json()["dropped_bindings"] == 3
    # The restarted runner mints "sess-1" again: it resolves to nothing.
    assert _list(world, "sess-1").status_code == 404
    report = runner.post(
        "/api/v1/runner/sessions", json={"container_name": "ws-a1", "session_id": "sess-1"}
    )
    assert report.status_code == 404
    # Texter's binding on runner-b is untouched.
    assert _list(world, "sess-b1", runner="runner-b").status_code == 200


def test_after_re_enrolment_a_new_workspace_binds_the_re_minted_id_again(
    start_comms: Start,
) -> None:
    world = start_comms()
    runner = world.runner()
    assert runner.post("/api/v1/runner/enroll").status_code == 200

    workspace = world.client("tok-robin").post(
        f"/api/v1/agents/{world.ids['lotse']}/workspaces", json={"runner_id": world.ids["runner-a"]}
    )
    assert workspace.status_code == 201
    container = workspace.json()["container_name"]
    report = runner.post(
        "/api/v1/runner/sessions", json={"container_name": container, "session_id": "sess-1"}
    )

    assert report.status_code == 201
    assert report.json() == {"container_name": container, "session_id": "sess-1", "state": "bound"}
    assert _list(world, "sess-1").status_code == 200


def test_a_binding_left_from_an_earlier_enrolment_resolves_to_404(
    start_comms: Start, sql: Any
) -> None:
    world = start_comms()
    # A row of epoch 0 (as a race with a re-enrolment could leave) must not count.
    sql("UPDATE session_bindings SET enrollment_epoch = 0 WHERE session_id = 'sess-1'")

    assert _list(world, "sess-1").status_code == 404
    assert world.runner().post("/api/v1/runner/sessions/sess-1/reload").status_code == 404


def test_session_reports_bind_once_repeat_with_200_and_refuse_a_taken_id(
    start_comms: Start,
) -> None:
    world = start_comms()
    runner = world.runner()
    sessions = "/api/v1/runner/sessions"

    first = runner.post(sessions, json={"container_name": "ws-a3", "session_id": "sess-3"})
    repeat = runner.post(sessions, json={"container_name": "ws-a3", "session_id": "sess-3"})
    taken = runner.post(sessions, json={"container_name": "ws-a3", "session_id": "sess-1"})
    unknown = runner.post(sessions, json={"container_name": "ws-none", "session_id": "sess-9"})
    foreign = world.runner("runner-b").post(
        sessions, json={"container_name": "ws-a3", "session_id": "sess-9"}
    )

    assert first.status_code == 201
    assert first.json() == {"container_name": "ws-a3", "session_id": "sess-3", "state": "bound"}
    assert repeat.status_code == 200
    assert repeat.json() == first.json()
    assert taken.status_code == 409
    assert unknown.status_code == 404
    assert comparable(foreign) == comparable(unknown)
    assert world.relay_ok("sess-3", world.list_call("c1"))["list_messages"]["items"]
    # A provisioned container has no session to relay through until it is reported.
    assert _list(world, "ws-a3").status_code == 404


def test_bindings_survive_a_restart_of_the_app(
    start_comms: Start, make_service: Callable[..., Any]
) -> None:
    world = start_comms()
    before = world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Before the restart."))

    restarted = CommsWorld(service=make_service(), ids=world.ids, database_url=world.database_url)
    after = restarted.relay_ok("sess-1", restarted.post_call("c2", "n:c2", "After the restart."))

    assert after["post_message"]["message"]["author"]["id"] == world.ids["lotse"]
    assert after["post_message"]["message"]["thread_seq"] == (
        before["post_message"]["message"]["thread_seq"] + 1
    )


def test_a_binding_whose_agent_is_disabled_answers_404(start_comms: Start) -> None:
    world = start_comms()
    unknown = _list(world, "sess-unknown")
    robin = world.client("tok-robin")
    assert (
        robin.patch(
            f"/api/v1/admin/principals/{world.ids['lotse']}", json={"status": "disabled"}
        ).status_code
        == 200
    )

    disabled = _list(world, "sess-1")

    assert comparable(disabled) == comparable(unknown)
    # The runner can still stop the session of a disabled agent.
    assert world.runner().delete("/api/v1/runner/sessions/sess-1").status_code == 204


def test_a_binding_without_a_resolvable_account_fails_closed_with_500(
    start_comms: Start, sql: Any
) -> None:
    world = start_comms()
    ghost = str(uuid.uuid4())
    # Only a broken row can lack its account: the foreign key is bypassed for this
    # one statement (replica mode skips the FK triggers).
    sql(
        "SET LOCAL session_replication_role = replica; "
        "UPDATE session_bindings SET agent_id = CAST(:ghost AS uuid) WHERE session_id = 'sess-1'",
        ghost=ghost,
    )

    response = world.relay("sess-1", world.post_call("c1", "n:ghost", "Must not be stored."))

    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    assert "error" not in response.json()
    assert sql("SELECT 1 FROM messages WHERE client_request_id = 'n:ghost'") == []
    assert '"session_id": "sess-1"' in world.service.log.getvalue()


def test_a_runner_that_never_enrolled_is_forbidden(start_comms: Start) -> None:
    world = start_comms()

    response = _list(world, "sess-1", runner="runner-new")

    assert response.status_code == 403
    assert response.json()["reason"] == "not_enrolled"
    assert world.runner("runner-new").post("/api/v1/runner/enroll").status_code == 200
    assert _list(world, "sess-1", runner="runner-new").status_code == 404


def test_runner_and_principal_tokens_never_cross(start_comms: Start) -> None:
    world = start_comms()
    general = f"/api/v1/channels/{world.ids['support/general']}/messages"

    assert world.runner().get(general).status_code == 401
    assert world.runner().post(general, json={"content_md": "Hi."}).status_code == 401
    for token in ("tok-robin", "tok-lotse", "tok-importer", None):
        client = world.client(token)
        assert client.post("/api/v1/runner/enroll").status_code == 401
        relay = client.post(
            "/api/v1/runner/comms:relay",
            json={"session_id": "sess-1", "call": world.list_call("c1")},
        )
        assert relay.status_code == 401


def test_relay_denials_of_the_session_lookup_are_audited_for_the_runner(
    start_comms: Start,
) -> None:
    world = start_comms()

    _list(world, "sess-unknown")
    _list(world, "sess-b1")

    rows = audit_rows(world.database_url)
    assert [
        (r["actor_id"], r["action"], r["resource_kind"], r["reason"], r["count"]) for r in rows
    ] == [(world.ids["runner-a"], "runner.comms.relay", "binding", "not_found", 2)]


def test_the_world_format_loads_enrolments_workspaces_and_bound_sessions(
    start_comms: Start, sql: Any
) -> None:
    world = start_comms(comms_world())

    rows = sql(
        "SELECT b.container_name, b.session_id, b.state, b.enrollment_epoch, r.handle"
        " FROM session_bindings b JOIN runners r ON r.id = b.runner_id ORDER BY 1",
    )

    assert [tuple(row) for row in rows] == [
        ("ws-a1", "sess-1", "bound", 1, "runner-a"),
        ("ws-a2", "sess-2", "bound", 1, "runner-a"),
        ("ws-a3", None, "provisioned", 1, "runner-a"),
        ("ws-b1", "sess-b1", "bound", 1, "runner-b"),
    ]
    assert world.ids["w1"] != world.ids["w2"]
