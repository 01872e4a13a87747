"""Channel context after a thread move, and tombstones (decisions.md R6 and R7).

ChannelContextAbsentAfterMove and TombstonesOmitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.run_context_world import (
    GENERAL,
    OTHER,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_thread,
    all_elements,
    base_world,
    channel,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]


def _move_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("g1", "sam", "GENERAL-MAIN-ONLY budget figures for the quarter."),
        msg("g2", "writer", "GENERAL-MAIN-ONLY second message."),
        msg("p1", "alex", "GENERAL-PARENT export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "alex", "In the thread: the export failed."),
            msg("trig", "alex", "@lotse please look."),
        ],
    )
    add_run(world, "r1", "t1", "trig")
    return world


def test_after_a_move_the_context_has_no_channel_context_and_no_source_content(
    start_world: Start,
) -> None:
    rc = start_world(_move_world())
    before = rc.context("r1")
    assert rc.keys_of(before["channel_context"]) == ["g1", "g2"]

    moved = rc.move_thread("t1", OTHER)
    assert moved["channel_id"] == rc.id(OTHER)
    assert moved["parent_message_id"] == rc.id("p1")
    response = rc.context_response("r1")

    assert response.status_code == 200
    body = response.json()
    assert "channel_context" not in body
    assert "GENERAL-MAIN-ONLY" not in response.text
    assert "GENERAL-PARENT" not in response.text
    assert rc.id("g1") not in response.text
    assert rc.id("p1") not in response.text
    assert rc.keys_of(body["thread_context"]) == ["e1"]
    assert body["trigger_message"]["message_id"] == rc.id("trig")
    assert {e["channel_id"] for e in all_elements(body)} == {rc.id(OTHER)}


def test_a_thread_moved_back_into_its_parent_s_channel_builds_channel_context_again(
    start_world: Start,
) -> None:
    rc = start_world(_move_world())
    rc.move_thread("t1", OTHER)
    assert "channel_context" not in rc.context("r1")

    rc.move_thread("t1", GENERAL)
    body = rc.context("r1")

    assert rc.keys_of(body["channel_context"]) == ["g1", "g2"]
    assert {e["channel_id"] for e in all_elements(body)} == {rc.id(GENERAL)}


def _tombstone_world() -> dict[str, Any]:
    world = base_world()
    channel(world, GENERAL)["history_backfill_limit"] = 3
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main one."),
        msg("c2", "writer", "", deleted=True),
        msg("c3", "sam", "Main three."),
        msg("p1", "alex", "Export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            *(msg(f"e{i}", "sam" if i % 2 else "writer", f"Earlier {i}.") for i in range(1, 6)),
            msg("trig", "alex", "@lotse please summarise."),  # seq 6
        ],
    )
    add_run(world, "r1", "t1", "trig")
    return world


def test_tombstones_are_left_out_and_do_not_count_towards_the_backfill_limit(
    start_world: Start,
) -> None:
    rc = start_world(_tombstone_world())
    before = rc.context("r1")
    assert rc.keys_of(before["thread_context"]) == ["e3", "e4", "e5"]
    assert before["truncated_before_seq"] == 3
    # A tombstone loaded with the world: c1 moves up into the limit of 3.
    assert rc.keys_of(before["channel_context"]) == ["c1", "c3"]

    rc.delete_message("e4")
    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e2", "e3", "e5"]
    assert [e["thread_seq"] for e in body["thread_context"]] == [2, 3, 5]
    assert body["truncated_before_seq"] == 2
    assert rc.id("e4") not in rc.context_response("r1").text


def test_older_tombstones_alone_do_not_mark_a_gap(start_world: Start) -> None:
    rc = start_world(_tombstone_world())
    rc.delete_message("e1")
    rc.delete_message("e2")
    rc.delete_message("e4")

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e3", "e5"]
    assert "truncated_before_seq" not in body


def test_a_deleted_triggering_message_appears_with_empty_content(start_world: Start) -> None:
    rc = start_world(_tombstone_world())

    rc.delete_message("trig")
    body = rc.context("r1")

    trigger = body["trigger_message"]
    assert trigger["message_id"] == rc.id("trig")
    assert trigger["thread_seq"] == 6
    assert trigger["content_md"] == ""
    assert trigger["trust"] == "trigger"
    assert "truncated" not in trigger
    assert rc.keys_of(body["thread_context"]) == ["e3", "e4", "e5"]
