"""Session modes: floor, own messages, already_delivered, channel context (decisions.md S0-5, S0-9).

ResumeFloorAndAlreadyDelivered, NewAndBindIncludeOwnMessages, GuestRun and
AutoThreadFirstRun.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.run_context_world import (
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_session,
    add_thread,
    all_elements,
    base_world,
    channel,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]


def _session_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main thread before the parent."),
        msg("c2", "writer", "Another main-thread message."),
        msg("p1", "alex", "Export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e-old", "sam", "Before the first run."),  # seq 1
            msg("trig-1", "alex", "@lotse first question"),  # seq 2
            msg("a-1", "lotse", "First answer."),  # seq 3
            msg("f-absorbed", "sam", "Follow-up: check the retries too."),  # seq 4
            msg("f-delivered", "robin", "Follow-up: and the timeout."),  # seq 5
            msg("f-dropped", "writer", "Follow-up that was dropped."),  # seq 6
            msg("a-2", "lotse", "Second answer."),  # seq 7
            msg("e-new", "robin", "After the first run."),  # seq 8
        ],
    )
    add_session(world, "s1", "t1", started=False)
    add_run(world, "r1", "t1", "trig-1", session="s1")
    return world


def _finish_first_run(rc: RunContextWorld) -> None:
    """Run r1 as the run lifecycle would (decisions.md D1): start, record follow-ups, end."""
    rc.set_run_state("r1", "running")  # starts session s1
    rc.create_followup("fu-absorbed", "r1", "f-absorbed", "delivered")
    rc.set_followup_state("fu-absorbed", "absorbed")
    rc.create_followup("fu-delivered", "r1", "f-delivered", "delivered")
    rc.create_followup("fu-dropped", "r1", "f-dropped", "pending")
    rc.set_followup_state("fu-dropped", "dropped")
    rc.set_run_state("r1", "succeeded")


def test_resume_sets_the_floor_leaves_out_own_answers_and_marks_delivered_followups(
    start_world: Start,
) -> None:
    rc = start_world(_session_world())
    _finish_first_run(rc)
    trig2 = rc.post("alex", "@lotse second question", key="trig-2", parent="p1")
    assert trig2["thread_seq"] == 9
    rc.create_run("r2", "t1", "trig-2", session="s1")

    body = rc.context("r2")

    assert body["context_floor_seq"] == 2
    assert rc.keys_of(body["thread_context"]) == ["f-absorbed", "f-delivered", "f-dropped", "e-new"]
    assert all(e["thread_seq"] > 2 for e in body["thread_context"])
    delivered = {
        key: rc.element(body, key).get("already_delivered")
        for key in ("f-absorbed", "f-delivered", "f-dropped", "e-new")
    }
    assert delivered == {"f-absorbed": True, "f-delivered": True, "f-dropped": None, "e-new": None}
    assert not any(e["author"]["id"] == rc.id("lotse") for e in all_elements(body))
    assert "channel_context" not in body
    # Messages at or below the floor are not "older missing" messages.
    assert "truncated_before_seq" not in body
    assert body["trigger_message"]["message_id"] == rc.id("trig-2")


def test_resume_floor_comes_from_the_newest_earlier_run_with_a_triggering_message(
    start_world: Start,
) -> None:
    rc = start_world(_session_world())
    _finish_first_run(rc)
    rc.post("alex", "@lotse second question", key="trig-2", parent="p1")  # seq 9
    rc.create_run("r2", "t1", "trig-2", session="s1", state="succeeded")
    rc.post("sam", "Between the runs.", key="between", parent="p1")  # seq 10
    # A later run of the session without a triggering message says nothing about
    # how far the session read: the run before it decides.
    rc.create_run(
        "r-cmd",
        "t1",
        None,
        session="s1",
        trigger_kind="command",
        triggered_by=None,
        state="succeeded",
    )
    rc.post("alex", "@lotse third question", key="trig-3", parent="p1")  # seq 11
    rc.create_run("r3", "t1", "trig-3", session="s1")

    body = rc.context("r3")

    assert body["context_floor_seq"] == 9
    assert rc.keys_of(body["thread_context"]) == ["between"]
    assert "channel_context" not in body


@pytest.mark.parametrize(
    ("limit", "expected", "gap"),
    [
        (2, ["f-dropped", "e-new"], 6),
        (3, ["f-delivered", "f-dropped", "e-new"], 5),
        (4, ["f-absorbed", "f-delivered", "f-dropped", "e-new"], None),
    ],
    ids=["limit-2", "limit-3", "limit-4"],
)
def test_own_messages_left_out_in_resume_do_not_count_towards_the_backfill_limit(
    start_world: Start,
    limit: int,
    expected: list[str],
    gap: int | None,
) -> None:
    rc = start_world(_session_world())
    _finish_first_run(rc)
    rc.patch_channel(GENERAL, history_backfill_limit=limit)
    rc.post("alex", "@lotse second question", key="trig-2", parent="p1")
    rc.create_run("r2", "t1", "trig-2", session="s1")

    body = rc.context("r2")

    # Above the floor (2): a-1 (3) and a-2 (7) are Lotse's and neither selected nor
    # counted, so with limit 4 nothing selectable is missing.
    assert rc.keys_of(body["thread_context"]) == expected
    assert body.get("truncated_before_seq") == gap


def test_a_reset_session_reads_in_mode_new_with_own_answers_and_channel_context(
    start_world: Start,
) -> None:
    rc = start_world(_session_world())
    _finish_first_run(rc)
    session = rc.set_session("s2", "t1", "reset")
    assert session["started"] is False
    assert session["agent_id"] == rc.id("lotse")
    rc.post("alex", "@lotse after the reset", key="trig-2", parent="p1")
    rc.create_run("r2", "t1", "trig-2", session="s2")

    body = rc.context("r2")

    _assert_first_run_of_session(rc, body)


def test_a_bound_session_reads_in_mode_bind_with_own_answers_and_channel_context(
    start_world: Start,
) -> None:
    rc = start_world(_session_world())
    _finish_first_run(rc)
    session = rc.set_session("s2", "t1", "bind")
    assert session["started"] is True
    rc.post("alex", "@lotse after the bind", key="trig-2", parent="p1")
    rc.create_run("r2", "t1", "trig-2", session="s2")

    body = rc.context("r2")

    _assert_first_run_of_session(rc, body)


def test_a_session_that_never_started_reads_in_mode_new_despite_an_earlier_failed_run(
    start_world: Start,
) -> None:
    rc = start_world(_session_world())
    rc.set_run_state("r1", "failed")  # never ran: session s1 stays unstarted
    rc.post("alex", "@lotse again", key="trig-2", parent="p1")
    rc.create_run("r2", "t1", "trig-2", session="s1")

    body = rc.context("r2")

    _assert_first_run_of_session(rc, body)


def _assert_first_run_of_session(rc: RunContextWorld, body: dict[str, Any]) -> None:
    assert body["context_floor_seq"] == 0
    assert rc.keys_of(body["thread_context"]) == [
        "e-old",
        "trig-1",
        "a-1",
        "f-absorbed",
        "f-delivered",
        "f-dropped",
        "a-2",
        "e-new",
    ]
    for key in ("a-1", "a-2"):
        element = rc.element(body, key)
        assert (element["role"], element["trust"], element["origin"]) == (
            "assistant",
            "self",
            "agent",
        )
    # already_delivered belongs to a resumed session only.
    assert all("already_delivered" not in e for e in all_elements(body))
    assert rc.keys_of(body["channel_context"]) == ["c1", "c2"]
    assert "truncated_before_seq" not in body


def _guest_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main thread before the parent."),
        msg("p1", "alex", "Campaign export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("tx-1", "texter", "Texter's earlier note as a guest."),  # seq 1
            msg("lo-1", "lotse", "Lotse's answer in its own thread."),  # seq 2
            msg("sam-1", "sam", "@lotse what about the campaign data?"),  # seq 3
            msg("trig", "alex", "@texter can you check the campaign export?"),  # seq 4
        ],
    )
    # Lotse operates the thread and already resumed a started session there.
    add_session(world, "s1", "t1", started=True)
    add_run(world, "r-lotse", "t1", "sam-1", session="s1", triggered_by="sam", state="succeeded")
    add_run(world, "r-guest", "t1", "trig", agent="texter")
    return world


def test_a_guest_run_has_no_floor_includes_own_messages_and_builds_channel_context(
    start_world: Start,
) -> None:
    rc = start_world(_guest_world())

    body = rc.context("r-guest", as_="texter")

    assert body["run_id"] == rc.id("r-guest")
    assert body["context_floor_seq"] == 0
    assert rc.keys_of(body["thread_context"]) == ["tx-1", "lo-1", "sam-1"]
    roles = {
        key: (rc.element(body, key)["role"], rc.element(body, key)["trust"])
        for key in ("tx-1", "lo-1", "sam-1")
    }
    assert roles == {
        "tx-1": ("assistant", "self"),
        "lo-1": ("other", "unverified"),
        "sam-1": ("user", "authorized"),
    }
    assert rc.keys_of(body["channel_context"]) == ["c1"]
    assert body["trigger_message"]["trust"] == "trigger"
    assert all("already_delivered" not in e for e in all_elements(body))


def test_the_operator_cannot_read_a_guest_s_run_in_a_channel_it_has_no_level_on(
    start_world: Start,
) -> None:
    rc = start_world(_guest_world())

    response = rc.context_response("r-guest", as_="lotse")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def _auto_thread_world() -> dict[str, Any]:
    world = base_world()
    general = channel(world, GENERAL)
    general["auto_thread"] = True
    general["history_backfill_limit"] = 2
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Oldest main-thread message."),  # seq 1
        msg("c2", "writer", "The export is slow today."),  # seq 2
        msg("c3", "importer", "Sync finished."),  # seq 3
        msg("m", "alex", "@lotse please look into the export."),  # seq 4
        msg("c5", "sam", "A later main-thread message."),  # seq 5
    )
    add_thread(world, "ta", parent="m")
    add_session(world, "s1", "ta", started=False)
    add_run(world, "r1", "ta", "m", session="s1")
    return world


def test_the_first_run_of_an_auto_thread_reads_the_main_thread_before_its_trigger(
    start_world: Start,
) -> None:
    rc = start_world(_auto_thread_world())

    body = rc.context("r1")

    trigger = body["trigger_message"]
    assert trigger["message_id"] == rc.id("m")
    assert trigger["thread_seq"] == 4
    assert trigger["trust"] == "trigger"
    assert body["context_floor_seq"] == 0
    assert body["thread_context"] == []
    assert rc.keys_of(body["channel_context"]) == ["c2", "c3"]
    general = rc.id(GENERAL)
    assert {e["channel_id"] for e in all_elements(body)} == {general}
    assert "truncated_before_seq" not in body


def test_the_second_run_of_an_auto_thread_resumes_with_floor_zero(start_world: Start) -> None:
    rc = start_world(_auto_thread_world())
    rc.set_run_state("r1", "running")
    rc.set_run_state("r1", "succeeded")
    first = rc.post("sam", "In the thread: the export log is attached.", key="in-1", parent="m")
    trig2 = rc.post("alex", "@lotse and the log?", key="trig-2", parent="m")
    assert first["thread_id"] == rc.id("ta")
    assert (first["thread_seq"], trig2["thread_seq"]) == (1, 2)
    rc.create_run("r2", "ta", "trig-2", session="s1")

    body = rc.context("r2")

    # The previous trigger is the parent message: a main-thread seq is no floor in T.
    assert body["context_floor_seq"] == 0
    assert rc.keys_of(body["thread_context"]) == ["in-1"]
    assert "channel_context" not in body
    assert body["trigger_message"]["message_id"] == rc.id("trig-2")
