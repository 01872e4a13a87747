"""Loading world fixtures into a real, migrated PostgreSQL database."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, func, select, text

from app.tokens import hash_token
from repositories import make_engine
from repositories.models import Base
from world import WorldError, load_world, load_world_file, parse_world_yaml
from world import loader as world_loader

pytestmark = pytest.mark.integration

DEMO_WORLD = Path(__file__).resolve().parents[2] / "examples" / "demo-world.yaml"
DEMO_TOKENS = {
    "tok-robin": "session",
    "tok-alex": "session",
    "tok-sam": "session",
    "tok-writer": "session",
    "tok-lotse": "agent",
    "tok-texter": "agent",
    "tok-scribe": "agent",
    "tok-importer": "app",
    "tok-runner-1": "runner",
}


@pytest.fixture
def conn(database_url: str) -> Iterator[Connection]:
    """A connection for assertions; it only reads."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()


def _row_counts(database_url: str) -> dict[str, int]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            return {
                table.name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                for table in Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()


def _load(database_url: str, world: dict[str, Any]) -> dict[str, str]:
    """Load an in-memory world in one transaction, as load_world_file does for a file."""
    engine = make_engine(database_url)
    try:
        with engine.begin() as connection:
            return load_world(connection, world)
    finally:
        engine.dispose()


def _demo() -> dict[str, Any]:
    return parse_world_yaml(DEMO_WORLD.read_text(encoding="utf-8"), source=str(DEMO_WORLD))


def test_demo_world_loads_and_maps_every_handle_and_key(
    database_url: str, conn: Connection
) -> None:
    mapping = load_world_file(database_url, str(DEMO_WORLD))

    assert set(mapping) == {
        "robin", "alex", "sam", "writer", "lotse", "texter", "scribe", "importer",
        "runner-1", "support", "marketing", "finance",
        "support/general", "support/other", "marketing/campaigns", "finance/ledger",
        "support/general#main", "support/other#main", "marketing/campaigns#main",
        "finance/ledger#main",
        "m1", "m2", "m3", "m4", "m5", "m6", "m7", "l1",
        "g-alex-support", "g-sam-general", "g-writer-general", "g-texter-general",
        "g-texter-marketing",
        "t1", "t2", "s1", "r1", "r2",
        "w-lotse", "w-scribe",
    }  # fmt: skip
    principals: dict[str, str] = {
        row.handle: row.id for row in conn.execute(text("SELECT handle, id::text FROM principals"))
    }
    for handle, principal_id in principals.items():
        assert mapping[handle] == principal_id
    main = conn.execute(
        text("SELECT channel_id::text, kind FROM threads WHERE id = :id"),
        {"id": mapping["support/general#main"]},
    ).one()
    assert tuple(main) == (mapping["support/general"], "main")
    run = conn.execute(
        text(
            "SELECT thread_id::text, agent_id::text, agent_session_id::text,"
            " triggering_message_id::text, triggered_by::text, state FROM runs WHERE id = :id"
        ),
        {"id": mapping["r1"]},
    ).one()
    assert tuple(run) == (
        mapping["t1"],
        mapping["lotse"],
        mapping["s1"],
        mapping["m6"],
        mapping["alex"],
        "queued",
    )
    agent = conn.execute(
        text("SELECT owner_user_id::text, home_channel_id::text FROM principals WHERE id = :id"),
        {"id": mapping["lotse"]},
    ).one()
    assert tuple(agent) == (mapping["robin"], mapping["support/general"])
    acting_for: dict[str, str] = {
        row.handle: row.acting_for
        for row in conn.execute(
            text("SELECT handle, acting_for FROM principals WHERE kind = 'agent'")
        )
    }
    assert acting_for == {"lotse": "optional", "texter": "optional", "scribe": "required"}
    parent = conn.execute(
        text("SELECT parent_message_id::text FROM threads WHERE id = :id"), {"id": mapping["t1"]}
    ).scalar_one()
    assert parent == mapping["m1"]


def test_thread_seq_and_created_at_increase_within_each_thread(
    database_url: str, conn: Connection
) -> None:
    load_world_file(database_url, str(DEMO_WORLD))

    rows = conn.execute(
        text("SELECT thread_id, thread_seq, created_at FROM messages ORDER BY 1, 2")
    ).all()
    by_thread: dict[uuid.UUID, list[Any]] = {}
    for thread_id, seq, created_at in rows:
        by_thread.setdefault(thread_id, []).append((seq, created_at))
    assert len(by_thread) == 4
    for entries in by_thread.values():
        assert [seq for seq, _ in entries] == list(range(1, len(entries) + 1))
        stamps = [created_at for _, created_at in entries]
        assert all(earlier < later for earlier, later in itertools.pairwise(stamps))


def test_tokens_are_stored_hashed(database_url: str, conn: Connection) -> None:
    mapping = load_world_file(database_url, str(DEMO_WORLD))

    stored = conn.execute(
        text("SELECT token_hash, kind, coalesce(principal_id, runner_id)::text FROM api_tokens")
    ).all()
    assert {(token_hash, kind) for token_hash, kind, _ in stored} == {
        (hash_token(token), kind) for token, kind in DEMO_TOKENS.items()
    }
    holders = {token_hash: holder for token_hash, _, holder in stored}
    assert holders[hash_token("tok-alex")] == mapping["alex"]
    assert holders[hash_token("tok-runner-1")] == mapping["runner-1"]
    dump = str(
        conn.execute(text("SELECT string_agg(api_tokens::text, ' ') FROM api_tokens")).scalar_one()
    )
    assert all(token not in dump for token in DEMO_TOKENS)


def test_explicit_ids_and_optional_message_fields_are_stored(
    database_url: str, conn: Connection
) -> None:
    person_id = "5f1e6c1a-0000-4000-8000-000000000001"
    file_id = "5f1e6c1a-0000-4000-8000-0000000000f1"
    world = {
        "people": [{"id": person_id, "handle": "alex", "status": "disabled"}],
        "agents": [{"handle": "lotse"}],
        "apps": [{"handle": "importer"}],
        "spaces": [
            {
                "name": "support",
                "archived": True,
                "channels": [
                    {
                        "name": "general",
                        "kind": "dm",
                        "members": ["alex", "lotse"],
                        "messages": [
                            {"key": "a", "author": "alex", "content": "gone", "deleted": True},
                            {
                                "key": "b",
                                "author": "importer",
                                "origin": "import",
                                "client_request_id": "req-1",
                                "attachments": [
                                    {
                                        "file_id": file_id,
                                        "original_name": "notes.txt",
                                        "mime_type": "text/plain",
                                        "size_bytes": 12,
                                        "scan_status": "clean",
                                    }
                                ],
                            },
                            {
                                "key": "c",
                                "author": "alex",
                                "origin": "system",
                                "system_code": "thread.reopened",
                                "at": "2025-06-01T12:00:00+02:00",
                            },
                            {"key": "d", "author": "lotse", "reply_to": "b"},
                        ],
                    }
                ],
            }
        ],
    }
    mapping = _load(database_url, world)

    assert mapping["alex"] == person_id
    rows = {
        row.id: row
        for row in conn.execute(
            text(
                "SELECT id::text, origin, kind, content_md, deleted_at IS NOT NULL AS deleted,"
                " system_code, client_request_id, created_at, reply_to_message_id::text"
                " FROM messages"
            )
        )
    }
    assert (rows[mapping["a"]].content_md, rows[mapping["a"]].deleted) == ("", True)
    assert rows[mapping["b"]].origin == "import"
    assert rows[mapping["b"]].client_request_id == "req-1"
    assert (rows[mapping["c"]].origin, rows[mapping["c"]].kind) == ("system", "system")
    assert rows[mapping["c"]].system_code == "thread.reopened"
    assert rows[mapping["c"]].created_at.isoformat() == "2025-06-01T10:00:00+00:00"
    # An implicit time after an explicit one is still later.
    assert rows[mapping["d"]].created_at > rows[mapping["c"]].created_at
    assert (rows[mapping["d"]].origin, rows[mapping["d"]].reply_to_message_id) == (
        "agent",
        mapping["b"],
    )
    attachment = conn.execute(
        text("SELECT message_id::text, position, file_id::text, size_bytes FROM attachments")
    ).one()
    assert tuple(attachment) == (mapping["b"], 0, file_id, 12)
    assert conn.execute(text("SELECT archived_at IS NOT NULL FROM spaces")).scalar_one()
    assert conn.execute(text("SELECT count(*) FROM channel_members")).scalar_one() == 2


def test_moved_thread_keeps_its_parent_in_the_source_channel(
    database_url: str, conn: Connection
) -> None:
    world = _demo()
    world["threads"][0]["channel"] = "support/other"
    world["followups"] = [{"key": "f1", "run": "r1", "message": "m5", "state": "absorbed"}]

    mapping = _load(database_url, world)

    thread = conn.execute(
        text("SELECT channel_id::text, parent_message_id::text FROM threads WHERE id = :id"),
        {"id": mapping["t1"]},
    ).one()
    assert tuple(thread) == (mapping["support/other"], mapping["m1"])
    followup = conn.execute(
        text("SELECT run_id::text, message_id::text, state FROM run_followups WHERE id = :id"),
        {"id": mapping["f1"]},
    ).one()
    assert tuple(followup) == (mapping["r1"], mapping["m5"], "absorbed")


def test_dangling_reference_deep_inside_writes_nothing(database_url: str) -> None:
    world = _demo()
    world["threads"][0]["messages"][1]["reply_to"] = "m404"

    with pytest.raises(WorldError) as caught:
        _load(database_url, world)

    assert str(caught.value) == 'threads[0].messages[1].reply_to: unknown message "m404"'
    assert set(_row_counts(database_url).values()) == {0}


def test_loading_twice_fails_clearly_and_writes_nothing(database_url: str) -> None:
    load_world_file(database_url, str(DEMO_WORLD))
    before = _row_counts(database_url)

    with pytest.raises(WorldError) as caught:
        load_world_file(database_url, str(DEMO_WORLD))

    assert str(caught.value) == 'people[0].handle: handle "robin" already exists in the database'
    assert _row_counts(database_url) == before


def test_unique_violation_from_the_database_is_mapped_and_rolled_back(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_world_file(database_url, str(DEMO_WORLD))
    before = _row_counts(database_url)
    # Skip the pre-check to reach the database's own unique constraint, as a concurrent
    # loader would.
    monkeypatch.setattr(world_loader, "_check_existing", lambda conn, plan: None)

    engine = make_engine(database_url)
    try:
        with engine.begin() as connection:
            with pytest.raises(WorldError) as caught:
                load_world(connection, _demo())
            # The savepoint was rolled back: the caller's transaction is still usable.
            assert connection.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()

    assert caught.value.path == "$"
    assert caught.value.message == (
        "conflicts with the database (unique violation on uq_principals_handle)"
    )
    assert "Good morning" not in str(caught.value)
    assert _row_counts(database_url) == before
