"""The cost of a context read does not grow with the thread (seed 000 note 3).

A thread with 10 earlier messages and one with 1000 are read; both reads take exactly
two OPA round trips (run.context.read, then the batch) and three SQL statements.
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
    add_thread,
    base_world,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

AUTHORS = ("sam", "writer", "robin", "texter", "importer")


def _thread(key: str, parent: str, earlier: int) -> list[dict[str, Any]]:
    messages = [
        msg(None, AUTHORS[i % len(AUTHORS)], f"{key} message {i + 1}") for i in range(earlier)
    ]
    return [*messages, msg(f"{key}-trig", "alex", f"@lotse summarise {key}")]


def _world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "sam", "Main thread message."),
        msg("p-short", "alex", "Short thread."),
        msg("c2", "writer", "Another main thread message."),
        msg("p-long", "alex", "Long thread."),
    )
    add_thread(world, "short", parent="p-short", messages=_thread("short", "p-short", 10))
    add_thread(world, "long", parent="p-long", messages=_thread("long", "p-long", 1000))
    add_run(world, "r-short", "short", "short-trig")
    add_run(world, "r-long", "long", "long-trig")
    return world


def _measure(rc: RunContextWorld, run: str) -> tuple[int, int, dict[str, Any]]:
    opa_before, sql_before = rc.service.opa_calls, rc.service.sql_statements
    body = rc.context(run)
    return rc.service.opa_calls - opa_before, rc.service.sql_statements - sql_before, body


def test_reading_a_thread_of_1000_messages_costs_what_a_thread_of_10_costs(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    rc.context("r-short")  # warm up connections and caches outside the measurement

    opa_short, sql_short, short = _measure(rc, "r-short")
    opa_long, sql_long, long = _measure(rc, "r-long")
    print(
        f"\ncontext read cost: 10 earlier messages: opa_calls={opa_short} "
        f"sql_statements={sql_short}; 1000 earlier messages: opa_calls={opa_long} "
        f"sql_statements={sql_long}"
    )

    assert len(short["thread_context"]) == 10
    assert "truncated_before_seq" not in short
    assert len(long["thread_context"]) == 50  # history_backfill_limit of general
    assert long["trigger_message"]["thread_seq"] == 1001
    assert [e["thread_seq"] for e in long["thread_context"]] == list(range(951, 1001))
    assert long["truncated_before_seq"] == 951
    assert opa_short == opa_long == 2
    # Token lookup; run, surroundings and the actor's facts; trigger, windows,
    # follow-ups and the authors' facts.
    assert sql_short == sql_long == 3
