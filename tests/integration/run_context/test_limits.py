"""Size and count limits of a run context (decisions.md S0-6 and S0-8).

TriggerNeverTruncated, SizeLimits_AG21 and BackfillLimit.
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
    base_world,
    msg,
    nbytes,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

SMALL = {"agent.context_message_max_bytes": 40, "agent.context_max_bytes": 100}


def _contents(body: dict[str, Any], part: str) -> list[str]:
    return [element["content_md"] for element in body[part]]


def _total(body: dict[str, Any]) -> int:
    return sum(
        nbytes(e["content_md"]) for e in (*body["thread_context"], *body.get("channel_context", []))
    )


def test_the_trigger_message_is_never_cut_and_never_counted(start_world: Start) -> None:
    long_trigger = "@lotse bitte prüfe den Export für Kunde Ä. " * 8
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "a" * 30),
            msg("e2", "writer", "b" * 30),
            msg("e3", "sam", "c" * 30),
            msg("m-trigger", "alex", long_trigger),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    rc = start_world(world, **SMALL)
    assert nbytes(long_trigger) > SMALL["agent.context_max_bytes"]

    body = rc.context("r1")

    trigger = body["trigger_message"]
    assert trigger["content_md"].encode("utf-8") == long_trigger.encode("utf-8")
    assert nbytes(trigger["content_md"]) == 368
    assert "truncated" not in trigger
    # 3 x 30 bytes fit the 100-byte budget: the trigger took nothing from it.
    assert rc.keys_of(body["thread_context"]) == ["e1", "e2", "e3"]
    assert _contents(body, "thread_context") == ["a" * 30, "b" * 30, "c" * 30]
    assert _total(body) == 90
    assert all("truncated" not in e for e in body["thread_context"])
    assert "truncated_before_seq" not in body


def test_long_elements_are_cut_on_a_utf8_boundary_and_the_budget_drops_the_oldest(
    start_world: Start,
) -> None:
    seq1 = "a" * 39 + "ä" + " and more text that is cut away"
    seq2 = "b" * 39 + "ä" + " and more text that is cut away"
    seq3 = "x" * 37 + "\N{GRINNING FACE}" + " rest of the message"
    seq4 = "d" * 40 + "e" * 20
    seq5 = "short note"
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", seq1),
            msg("e2", "writer", seq2),
            msg("e3", "sam", seq3),
            msg("e4", "writer", seq4),
            msg("e5", "sam", seq5),
            msg("m-trigger", "alex", "@lotse summarise please"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    rc = start_world(world, **SMALL)

    body = rc.context("r1")

    # Newest first: 10 + 40 + 37 = 87 bytes fit; e2 (cut to 39) would make 126.
    assert rc.keys_of(body["thread_context"]) == ["e3", "e4", "e5"]
    assert [e["thread_seq"] for e in body["thread_context"]] == [3, 4, 5]
    e3, e4, e5 = body["thread_context"]
    assert e3["content_md"] == "x" * 37  # the 4-byte character would cross byte 40
    assert nbytes(e3["content_md"]) == 37
    assert e3["truncated"] is True
    assert e4["content_md"] == "d" * 40  # ASCII: cut exactly at the limit
    assert nbytes(e4["content_md"]) == 40
    assert e4["truncated"] is True
    assert e5["content_md"] == seq5
    assert "truncated" not in e5
    assert _total(body) == 87 <= SMALL["agent.context_max_bytes"]
    assert body["truncated_before_seq"] == 3


def test_a_two_byte_character_across_the_limit_is_not_split(start_world: Start) -> None:
    content = "a" * 39 + "ä" + "b" * 10
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", content),
            msg("m-trigger", "alex", "@lotse look"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    rc = start_world(world, **SMALL)

    (element,) = rc.context("r1")["thread_context"]

    assert element["content_md"] == "a" * 39
    assert element["truncated"] is True
    assert nbytes(element["content_md"]) == 39


def _budget_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "1" * 30),
        msg("c2", "writer", "2" * 30),
        msg("p1", "alex", "Export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "3" * 30),
            msg("e2", "writer", "4" * 30),
            msg("m-trigger", "alex", "@lotse go"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    return world


def test_channel_elements_are_dropped_before_thread_elements(start_world: Start) -> None:
    rc = start_world(_budget_world(), **{"agent.context_max_bytes": 100})

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e1", "e2"]
    assert rc.keys_of(body["channel_context"]) == ["c2"]
    assert _total(body) == 90
    # Only channel elements are missing: truncated_before_seq refers to the thread.
    assert "truncated_before_seq" not in body


def test_a_tight_budget_drops_channel_context_and_older_thread_elements(
    start_world: Start,
) -> None:
    rc = start_world(_budget_world(), **{"agent.context_max_bytes": 59})

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e2"]
    assert body["channel_context"] == []
    assert body["truncated_before_seq"] == 2


def test_an_element_larger_than_the_budget_drops_every_older_element_too(
    start_world: Start,
) -> None:
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "tiny"),
            msg("e2", "writer", "w" * 55),
            msg("m-trigger", "alex", "@lotse go"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    rc = start_world(
        world, **{"agent.context_max_bytes": 50, "agent.context_message_max_bytes": 60}
    )

    body = rc.context("r1")

    # e1 alone would fit, but the kept elements are a gap-free newest suffix.
    assert body["thread_context"] == []
    assert body["truncated_before_seq"] == 3


def test_a_sum_exactly_at_the_budget_is_kept(start_world: Start) -> None:
    rc = start_world(_budget_world(), **{"agent.context_max_bytes": 120})

    body = rc.context("r1")

    assert rc.keys_of(body["channel_context"]) == ["c1", "c2"]
    assert rc.keys_of(body["thread_context"]) == ["e1", "e2"]
    assert _total(body) == 120
    assert "truncated_before_seq" not in body


def _backfill_world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        *(msg(f"c{i}", "sam", f"main {i}") for i in range(1, 6)),
        msg("p1", "alex", "Export thread."),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            *(msg(f"e{i}", "writer" if i % 2 else "sam", f"earlier {i}") for i in range(1, 7)),
            msg("m-trigger", "alex", "@lotse go"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    return world


def test_history_backfill_limit_keeps_the_newest_and_marks_the_gap(start_world: Start) -> None:
    rc = start_world(_backfill_world())
    rc.patch_channel(GENERAL, history_backfill_limit=3)

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e4", "e5", "e6"]
    assert [e["thread_seq"] for e in body["thread_context"]] == [4, 5, 6]
    assert body["truncated_before_seq"] == 4
    # The limit applies to each part separately.
    assert rc.keys_of(body["channel_context"]) == ["c3", "c4", "c5"]


def test_history_backfill_limit_equal_to_the_earlier_messages_leaves_no_gap(
    start_world: Start,
) -> None:
    rc = start_world(_backfill_world())
    rc.patch_channel(GENERAL, history_backfill_limit=6)

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == [f"e{i}" for i in range(1, 7)]
    assert "truncated_before_seq" not in body
    assert rc.keys_of(body["channel_context"]) == [f"c{i}" for i in range(1, 6)]


def test_history_backfill_limit_zero_gives_empty_parts_and_the_trigger_seq_as_gap(
    start_world: Start,
) -> None:
    rc = start_world(_backfill_world())
    rc.patch_channel(GENERAL, history_backfill_limit=0)

    body = rc.context("r1")

    assert body["thread_context"] == []
    assert body["channel_context"] == []
    assert body["truncated_before_seq"] == 7
    assert body["trigger_message"]["thread_seq"] == 7


def test_a_channel_without_its_own_limit_uses_the_configured_default(start_world: Start) -> None:
    world = base_world()
    add_main_messages(world, OTHER, msg("p1", "alex", "Thread in other."))
    add_thread(
        world,
        "t1",
        OTHER,
        parent="p1",
        messages=[
            *(msg(f"e{i}", "alex", f"earlier {i}") for i in range(1, 5)),
            msg("m-trigger", "alex", "@lotse go"),
        ],
    )
    add_run(world, "r1", "t1", "m-trigger")
    rc = start_world(world, **{"channel.history_backfill_limit_default": 2})

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e3", "e4"]
    assert body["truncated_before_seq"] == 3


def test_the_configured_maximum_caps_a_channel_s_own_limit(start_world: Start) -> None:
    rc = start_world(_backfill_world(), **{"channel.history_backfill_limit_max": 2})

    body = rc.context("r1")

    assert rc.keys_of(body["thread_context"]) == ["e5", "e6"]
    assert rc.keys_of(body["channel_context"]) == ["c4", "c5"]
    assert body["truncated_before_seq"] == 5
