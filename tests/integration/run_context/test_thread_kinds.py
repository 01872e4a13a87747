"""Thread kinds and operators: main thread, forum post, a thread's own operator.

Windows and session plans per kind (decisions.md S0-5 and S0-6), and the 404 for a run
whose triggering message lies neither in its thread nor is its parent message
(decisions.md R12).
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
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]


def test_a_run_in_the_main_thread_reads_the_main_thread_as_thread_context(
    start_world: Start,
) -> None:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main one."),
        msg("c2", "writer", "Main two."),
        msg("trig", "alex", "@lotse in the main thread"),
        msg("c4", "sam", "After the trigger."),
    )
    add_run(world, "r1", GENERAL, "trig")
    rc = start_world(world)

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["c1", "c2"]
    assert body["trigger_message"]["thread_seq"] == 3
    # A main thread has no parent message: nothing to build.
    assert "channel_context" not in body
    assert {e["channel_id"] for e in all_elements(body)} == {rc.id(GENERAL)}


def test_a_forum_post_has_no_channel_context(start_world: Start) -> None:
    world = base_world()
    add_main_messages(world, GENERAL, msg("c1", "sam", "Main one."))
    add_thread(
        world,
        "post",
        kind="forum_post",
        messages=[
            msg("f1", "sam", "Forum post opening."),
            msg("trig", "alex", "@lotse answer the post"),
        ],
    )
    add_run(world, "r1", "post", "trig")
    rc = start_world(world)

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["f1"]
    assert body["context_floor_seq"] == 0
    assert "channel_context" not in body


def _operator_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main one."),
        msg("p1", "alex", "Thread operated by texter."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        operator="texter",
        messages=[
            msg("tx-1", "texter", "Texter answered before."),  # seq 1
            msg("trig-1", "alex", "@texter first"),  # seq 2
            msg("tx-2", "texter", "Texter's answer to the first."),  # seq 3
            msg("e1", "sam", "More context."),  # seq 4
            msg("trig-2", "alex", "@texter second, and @lotse too"),  # seq 5
        ],
    )
    add_session(world, "s1", "t1", agent="texter", started=True)
    add_run(world, "r-tx-1", "t1", "trig-1", agent="texter", session="s1", state="succeeded")
    return world


def test_the_thread_s_own_operator_resumes_its_session_there(start_world: Start) -> None:
    rc = start_world(_operator_world())
    rc.create_run("r-tx-2", "t1", "trig-2", agent="texter", session="s1")

    body = rc.context("r-tx-2", as_="texter")

    assert body["context_floor_seq"] == 2
    assert rc.keys_of(body["thread_context"]) == ["e1"]
    assert "channel_context" not in body


def test_the_channel_s_operator_is_a_guest_in_a_thread_with_its_own_operator(
    start_world: Start,
) -> None:
    rc = start_world(_operator_world())
    # Lotse holds no level on general: the run alone grants it its thread (decisions.md S0-11).
    rc.create_run("r-lotse", "t1", "trig-2")

    body = rc.context("r-lotse")

    assert body["context_floor_seq"] == 0
    assert rc.keys_of(body["thread_context"]) == ["tx-1", "trig-1", "tx-2", "e1"]
    assert {rc.element(body, k)["trust"] for k in ("tx-1", "tx-2")} == {"unverified"}
    assert rc.keys_of(body["channel_context"]) == ["c1"]


def test_a_triggering_message_outside_the_run_s_thread_answers_404(start_world: Start) -> None:
    world = base_world()
    add_main_messages(
        world, GENERAL, msg("p1", "alex", "Thread one."), msg("p2", "alex", "Thread two.")
    )
    add_thread(world, "t1", parent="p1", messages=[msg("e1", "sam", "In one.")])
    add_thread(world, "t2", parent="p2", messages=[msg("trig", "alex", "@lotse in two")])
    rc = start_world(world)
    rc.create_run("r-odd", "t1", "trig")
    rc.create_run("r-main", "t1", "p2")

    for run in ("r-odd", "r-main"):
        response = rc.context_response(run)
        assert response.status_code == 404, run
        assert response.json()["code"] == "not_found"
