"""The cost of a context read does not grow with the thread (decisions.md S0-3).

A thread with 10 earlier messages and one with 1000 are read; both reads take exactly
two OPA round trips (run.context.read, then the batch) and three SQL statements. A
denied read stops after the first decision (issue 22).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event

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


def _denied(rc: RunContextWorld, run_id: str, as_: str) -> tuple[int, int, int, list[Any]]:
    sent: list[Any] = []
    engines = (rc.service.app.services.engine, rc.service.app.services.read_engine)

    def capture(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        sent.append(" ".join(statement.split())[:40])

    for engine in engines:
        event.listen(engine, "before_cursor_execute", capture)
    opa_before, sql_before = rc.service.opa_calls, rc.service.sql_statements
    try:
        response = rc.service.client(f"tok-{as_}").get(f"/api/v1/runs/{run_id}/context")
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", capture)
    return (
        response.status_code,
        rc.service.opa_calls - opa_before,
        rc.service.sql_statements - sql_before,
        sent,
    )


def test_a_denied_read_costs_one_opa_round_trip_and_reads_no_message(start_world: Start) -> None:
    world = _world()
    add_run(world, "r-ended", "long", "long-trig", state="succeeded")
    rc = start_world(world)
    rc.context("r-short")  # warm up connections and prepared statements
    cases = (
        (rc.id("r-long"), "alex", 403),  # a person asks
        (rc.id("r-long"), "texter", 403),  # another agent that sees the channel
        (rc.id("r-ended"), "lotse", 404),  # its own run, no longer active: the one 404
    )
    for run_id, as_, _status in cases:
        _denied(rc, run_id, as_)

    # One decision, then the denial's audit row. Statements: the token, the run with the
    # actor's facts, the audit upsert (denials are audited, decisions.md S0); no window is read.
    for run_id, as_, status in cases:
        code, opa_calls, statements, sent = _denied(rc, run_id, as_)
        assert code == status
        assert opa_calls == 1, as_
        assert statements == 3, (as_, sent)
        assert sent[0].startswith("EXECUTE token_holder")
        assert sent[1].startswith("EXECUTE run_context_load")
        assert sent[2].startswith("INSERT INTO audit_log")

    # An unknown run: the same 404 without a decision (nothing to decide on).
    code, opa_calls, statements, _sent = _denied(rc, str(uuid.uuid4()), "texter")
    assert (code, opa_calls, statements) == (404, 0, 2)
