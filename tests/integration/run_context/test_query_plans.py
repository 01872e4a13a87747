"""Every statement of a context read uses an index, also on a 100,000-message thread.

The thread and the channel's main thread each hold 100,000 messages before the
triggering and the parent message (every twentieth with an attachment) and one
follow-up per hundred messages, so a sequential scan of ``messages``,
``attachments`` or ``run_followups`` would show. The statements are the ones the
service really sent for one read (captured from its engine), explained with
``EXPLAIN EXECUTE`` as prepared statements with the generic plan the service uses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import psycopg2
import pytest
from sqlalchemy import event

from tests.support.run_context_world import (
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_session,
    add_thread,
    base_world,
    msg,
)
from tests.support.services import run_sql

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]
SIZE = 100_000
LARGE_TABLES = {"messages", "attachments", "run_followups"}


def _world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(world, GENERAL, msg("parent", "alex", "Export thread."))
    add_thread(world, "big", parent="parent", messages=[msg("trigger", "alex", "@lotse summarise")])
    add_session(world, "s1", "big", started=True)
    add_run(world, "r1", "big", "trigger", session="s1")
    return world


def _grow(database_url: str, rc: RunContextWorld) -> None:
    """100,000 messages before the trigger and before the parent, then ANALYZE."""
    statements = []
    for thread, last in (
        (rc.id("big"), rc.id("trigger")),
        (rc.id(f"{GENERAL}#main"), rc.id("parent")),
    ):
        statements += [
            f"UPDATE messages SET thread_seq = {SIZE + 1} WHERE id = '{last}'",
            f"""INSERT INTO messages (thread_id, thread_seq, author_principal_id, origin,
                                      content_md)
                SELECT '{thread}', g, '{rc.id("sam")}', 'human', 'message ' || g
                FROM generate_series(1, {SIZE}) g""",
        ]
    statements += [
        """INSERT INTO attachments (message_id, position, file_id, original_name, mime_type,
                                    size_bytes, scan_status)
           SELECT id, 0, gen_random_uuid(), 'log.txt', 'text/plain', 10, 'clean'
           FROM messages WHERE thread_seq % 20 = 0""",
        f"""INSERT INTO run_followups (run_id, message_id, state)
            SELECT '{rc.id("r1")}', id, 'delivered' FROM messages
            WHERE thread_id = '{rc.id("big")}' AND thread_seq % 100 = 0""",
        "ANALYZE",
    ]
    run_sql(database_url, *statements)


def _scans(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(node type, relation) of every node of a JSON plan that reads a relation."""
    if "Relation Name" in plan:
        yield plan["Node Type"], plan["Relation Name"]
    for child in plan.get("Plans", []):
        yield from _scans(child)


@pytest.fixture
def captured(start_world: Start, database_url: str) -> tuple[RunContextWorld, list[Any]]:
    """The world grown to 100,000 messages and the statements of one context read."""
    rc = start_world(_world())
    _grow(database_url, rc)
    sent: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    engines = (rc.service.app.services.engine, rc.service.app.services.read_engine)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", capture)
    try:
        body = rc.context("r1")
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", capture)
    assert body["trigger_message"]["thread_seq"] == SIZE + 1
    assert len(body["thread_context"]) == 50
    assert len(body["channel_context"]) == 50
    return rc, sent


def test_a_context_read_of_a_100000_message_thread_uses_only_index_scans_on_large_tables(
    captured: tuple[RunContextWorld, list[Any]], database_url: str
) -> None:
    rc, sent = captured
    executed = [(sql, params) for sql, params in sent if sql.startswith("EXECUTE")]
    prepares = [sql for sql, _ in sent if sql.startswith("PREPARE")]
    # Token lookup; run with the actor's facts; trigger, windows, follow-ups and the
    # authors' facts. Each statement was prepared on the connection's first use.
    assert [sql.split("(")[0] for sql, _ in executed] == [
        "EXECUTE token_holder",
        "EXECUTE run_context_load",
        "EXECUTE run_context_candidates",
    ]
    assert len(prepares) == 3

    conn = psycopg2.connect(database_url)
    conn.autocommit = True
    try:
        with conn.cursor() as cursor:
            cursor.execute("SET plan_cache_mode = force_generic_plan")
            for prepare in prepares:
                cursor.execute(prepare)
            for sql, params in executed:
                cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
                explained = cursor.fetchone()
                assert explained is not None
                plan = explained[0][0]["Plan"]
                scans = list(_scans(plan))
                seq_scans = [rel for node, rel in scans if node == "Seq Scan"]
                assert not set(seq_scans) & LARGE_TABLES, (sql, json.dumps(plan)[:2000])
                if "run_context" in sql:
                    indexed = {rel for node, rel in scans if node.startswith("Index")}
                    assert "messages" in indexed, sql
    finally:
        conn.close()

    # A second read sends exactly the three statements (already prepared).
    before = rc.service.sql_statements
    rc.context("r1")
    assert rc.service.sql_statements - before == 3
