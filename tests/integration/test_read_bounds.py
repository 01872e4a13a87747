"""Every statement of the read path reads a bounded number of buffers, whatever the plan.

Issue 22: a plan made without statistics (a bitmap scan of a whole thread and a top-N
sort) read every message of a 100,000-message thread, and a pooled connection kept
that plan after ANALYZE. The statements are now bounded by construction
(``repositories/windows.py``): every window reads a ``thread_seq`` range computed
from its anchor. This test shows it the hard way:

* the world is loaded through the real loader (``load_world``, no ANALYZE) with
  autovacuum off for its tables, so the planner never has statistics;
* the prepared statements are prepared, and their generic plans made, on connections
  that saw the tables empty: one with the default planner settings, one without index
  scans (so bitmap heap scans, the plan shape of the issue) and one without bitmap
  scans;
* the statements the service really sends for a context read, a listing's first page,
  a deep ``before_message_id`` page and the relay's list are captured, run again on
  those connections under ``EXPLAIN (ANALYZE, BUFFERS)``, and the buffers each one
  touched are compared between a 100,000-message thread (and main thread) and a
  1,000-message one: equal up to a small allowance, and below an absolute bound.

Both threads end with tombstones among their newest messages, so the windows must
widen past them (tombstones count towards no limit, decisions.md R7).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import psycopg2
import pytest
from sqlalchemy import event

from repositories import facts, messages, principals, run_context
from repositories.prepared import PreparedStatement
from tests.support.comms_world import comms_world
from tests.support.world import add_run, add_session, add_thread, channel, load, msg

pytestmark = pytest.mark.integration

BIG = 100_000
SMALL = 1_000
OTHER = "support/other"
TABLES = (
    "messages",
    "attachments",
    "threads",
    "runs",
    "run_followups",
    "agent_sessions",
    "principals",
    "api_tokens",
    "session_bindings",
)
# Planner settings of the connections whose cached plans are checked.
PLANNERS: dict[str, tuple[str, ...]] = {
    "default": (),
    "no index scans": ("SET enable_indexscan = off", "SET enable_indexonlyscan = off"),
    "no bitmap scans": ("SET enable_bitmapscan = off",),
}
# A statement on the large thread may touch this many buffers more than on the small
# one (a deeper B-tree level, another heap page at a range's edge), and none more than
# ABSOLUTE (a window of 50 messages with attachments, authors and follow-ups).
ALLOWANCE = 1.25
SLACK = 30
ABSOLUTE = 3000
PREPARED = [
    value
    for module in (principals, facts, run_context, messages)
    for value in vars(module).values()
    if isinstance(value, PreparedStatement)
]


def _messages(prefix: str, count: int, deep_key: str) -> list[dict[str, Any]]:
    """``count`` messages; the 100th has ``deep_key``; 20 of the newest 60 are tombstones."""
    items = []
    for index in range(1, count + 1):
        extra: dict[str, Any] = {}
        if index == 100:
            extra["key"] = deep_key
        if index > count - 60 and index % 3 == 0:
            extra["deleted"] = True
        author = ("sam", "writer", "alex", "lotse")[index % 4]
        items.append({"author": author, "content": f"{prefix} message {index}", **extra})
    return items


def _world() -> dict[str, Any]:
    world = comms_world()
    cases = (("support/general", BIG, "big"), (OTHER, SMALL, "small"))
    for path, size, name in cases:
        main = channel(world, path)
        main["members"] = ["lotse"]  # the relay lists as lotse
        main["messages"] = [
            *_messages(f"{name} main", size, f"deep-main-{name}"),
            msg(f"p-{name}", "alex", f"Parent of the {name} thread."),
        ]
        add_thread(
            world,
            name,
            path,
            parent=f"p-{name}",
            messages=[
                *_messages(f"{name} thread", size, f"deep-{name}"),
                msg(f"t-{name}", "alex", "@lotse summarise"),
            ],
        )
        add_session(world, f"s-{name}", name, started=True)
        add_run(world, f"r-{name}", name, f"t-{name}", session=f"s-{name}", state="running")
    return world


def _prepare_empty(database_url: str) -> dict[str, Any]:
    """One connection per planner setting, every prepared statement's generic plan made
    while the tables are empty (each executed once with NULL parameters)."""
    connections: dict[str, Any] = {}
    for name, settings in PLANNERS.items():
        conn = psycopg2.connect(
            database_url.replace("postgresql+psycopg2://", "postgresql://"),
            options="-c timezone=UTC -c plan_cache_mode=force_generic_plan",
        )
        conn.autocommit = True
        with conn.cursor() as cursor:
            for setting in settings:
                cursor.execute(setting)
            for statement in PREPARED:
                cursor.execute(statement._prepare)
                nulls = ", ".join("NULL" for _ in statement.parameters)
                cursor.execute(
                    f"EXECUTE {statement.name}({nulls})" if nulls else statement._execute
                )
                cursor.fetchall()
        connections[name] = conn
    return connections


@pytest.fixture
def prepared_then_loaded(
    database_url: str, sql: Callable[..., list[Any]]
) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """Connections prepared on empty tables, then the world loaded without statistics."""
    for table in TABLES:
        sql(f"ALTER TABLE {table} SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)")
    connections = _prepare_empty(database_url)
    try:
        ids = load(database_url, _world())
        yield connections, ids
    finally:
        for conn in connections.values():
            conn.close()


def _capture(engines: tuple[Any, ...], action: Callable[[], Any]) -> list[tuple[str, Any]]:
    sent: list[tuple[str, Any]] = []

    def on_statement(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if not statement.startswith("PREPARE "):
            sent.append((statement, parameters))

    for engine in engines:
        event.listen(engine, "before_cursor_execute", on_statement)
    try:
        action()
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", on_statement)
    return sent


def _buffers(conn: Any, statement: str, parameters: Any) -> tuple[int, str]:
    """Buffers the statement touched (hit, read, temp) and its plan's node types."""
    with conn.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement, parameters)
        row = cursor.fetchone()
    assert row is not None
    plan = row[0][0]["Plan"]
    total = sum(
        plan.get(key, 0)
        for key in (
            "Shared Hit Blocks",
            "Shared Read Blocks",
            "Local Hit Blocks",
            "Local Read Blocks",
            "Temp Read Blocks",
        )
    )
    return total, json.dumps(plan)[:3000]


def _label(statement: str) -> str:
    return " ".join(statement.split())[:60]


def test_every_read_statement_touches_as_many_buffers_on_100000_messages_as_on_1000(
    prepared_then_loaded: tuple[dict[str, Any], dict[str, str]],
    make_service: Callable[..., Any],
    sql: Callable[..., list[Any]],
) -> None:
    connections, ids = prepared_then_loaded
    # No statistics: never analysed or vacuumed (reltuples -1), autovacuum off.
    assert sql("SELECT reltuples FROM pg_class WHERE relname = 'messages'") == [(-1.0,)]
    assert sql("SELECT count(*) FROM messages")[0][0] > 2 * BIG

    service = make_service()
    engines = (service.app.services.engine, service.app.services.read_engine)
    alex = service.client("tok-alex")
    lotse = service.client("tok-lotse")
    runner = service.client("tok-runner-a")

    def reads(name: str, path: str) -> dict[str, Callable[[], Any]]:
        channel_id = ids[path]
        deep = ids[f"deep-main-{name}"]
        listing = f"/api/v1/channels/{channel_id}/messages"

        def relay(**args: Any) -> Any:
            call = {"call_id": "c1", "list_messages": {"channel_id": channel_id, **args}}
            body = runner.post(
                "/api/v1/runner/comms:relay", json={"session_id": "sess-1", "call": call}
            ).json()
            assert "list_messages" in body, body
            return body

        return {
            "context": lambda: lotse.get(f"/api/v1/runs/{ids[f'r-{name}']}/context").json(),
            "first page": lambda: alex.get(listing, params={"limit": 50}).json(),
            "deep page": lambda: alex.get(
                listing, params={"limit": 50, "before_message_id": deep}
            ).json(),
            "thread page": lambda: alex.get(
                listing, params={"limit": 50, "parent_message_id": ids[f"p-{name}"]}
            ).json(),
            "relay list": lambda: relay(limit=50),
            "relay deep list": lambda: relay(limit=50, before_message_id=deep),
        }

    big_reads = reads("big", "support/general")
    small_reads = reads("small", OTHER)

    # The answers are the same shape on both sizes, widened past the tombstones.
    big_context = big_reads["context"]()
    assert len(big_context["thread_context"]) == 50
    assert len(big_context["channel_context"]) == 50
    assert big_context["truncated_before_seq"] == big_context["thread_context"][0]["thread_seq"]
    seqs = [e["thread_seq"] for e in big_context["thread_context"]]
    assert all(seq % 3 != 0 or seq <= BIG - 60 for seq in seqs)
    assert seqs[-1] == BIG
    assert seqs[0] < BIG - 60
    first = big_reads["first page"]()
    assert [m["thread_seq"] for m in first["items"]] == list(range(BIG - 48, BIG + 2))
    assert first["has_more"] is True
    deep_page = big_reads["deep page"]()
    assert [m["thread_seq"] for m in deep_page["items"]] == list(range(50, 100))
    assert deep_page["has_more"] is True

    failures = []
    for operation in big_reads:
        big_sent = _capture(engines, big_reads[operation])
        small_sent = _capture(engines, small_reads[operation])
        assert [_label(s) for s, _ in big_sent] == [_label(s) for s, _ in small_sent], operation
        for planner, conn in connections.items():
            for (statement, big_params), (_same, small_params) in zip(
                big_sent, small_sent, strict=True
            ):
                big_buffers, plan = _buffers(conn, statement, big_params)
                small_buffers, _plan = _buffers(conn, statement, small_params)
                bound = min(ABSOLUTE, small_buffers * ALLOWANCE + SLACK)
                print(
                    f"{operation:16} {planner:16} {big_buffers:6} {small_buffers:6} "
                    f"{_label(statement)}"
                )
                if big_buffers > bound:
                    failures.append(
                        f"{operation}, {planner}: {_label(statement)} touched {big_buffers} "
                        f"buffers on {BIG:,} messages, {small_buffers} on {SMALL:,}: {plan}"
                    )
    assert not failures, "\n".join(failures)
