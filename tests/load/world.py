"""The benchmark world and its database: generated threads of 10 to 100,000 messages,
loaded through the product's loader."""

from __future__ import annotations

import itertools
import random
from typing import Any

from repositories.migrate import upgrade
from tests.load import operations
from tests.support.services import PostgresCluster, run_sql
from world import load_world_data

SIZES = (10, 100, 1000, 100_000)
# The case the targets are stated for: 100 earlier messages, a full window of 50 thread
# and 50 channel elements. Its second OPA input is the bare runcontext/evaluate input.
REFERENCE = 100
# Threads up to this size get generated contents; larger ones repeat the largest of
# them. Every thread is in the world, loaded through the product's loader.
GENERATED = 1000
AGENT_TOKEN = "tok-lotse"
DATABASE = "bench"

# Words for generated contents: plain, Markdown and multi-byte (2, 3 and 4 UTF-8 bytes).
_WORDS = (
    "export",
    "billing",
    "timeout",
    "retry",
    "job",
    "queue",
    "status",
    "note",
    "customer",
    "invoice",
    "the",
    "a",
    "we",
    "should",
    "check",
    "again",
    "after",
    "deploy",
    "failed",
    "Grüße",
    "Straße",
    "Überweisung",
    "naïve",
    "café",
    "Ærøskøbing",
    "€",
    "≈",
    "→",
    "日本語",
    "請求書",
    "テスト",
    "데이터",
    "🚀",
    "✅",
    "🔥",
    "`cron`",
    "**urgent**",
    "_maybe_",
    "https://example.com/runbook",
    "02:10",
    "#4711",
    "\n- item",
    "\n\n",
)
_AUTHORS = ("sam", "writer", "alex", "robin", "lotse")
_AUTHOR_WEIGHTS = (30, 25, 25, 10, 10)


def _content(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.70:
        length = rng.randint(20, 200)
    elif roll < 0.92:
        length = rng.randint(200, 1500)
    elif roll < 0.99:
        length = rng.randint(1500, 6000)
    else:
        # Longer than agent.context_message_max_bytes (16 KiB by default): cut.
        length = rng.randint(17000, 24000)
    words: list[str] = []
    total = 0
    while total < length:
        word = rng.choice(_WORDS)
        words.append(word)
        total += len(word) + 1
    return " ".join(words).strip() or "ok"


def _message(rng: random.Random, author: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "author": author or rng.choices(_AUTHORS, weights=_AUTHOR_WEIGHTS)[0],
        "content": _content(rng),
    }
    if rng.random() < 0.05:
        item["attachments"] = [
            {
                "original_name": f"export-log-{rng.randint(1, 999)}.txt",
                "mime_type": "text/plain",
                "size_bytes": rng.randint(100, 2_000_000),
                "scan_status": "clean",
            }
        ]
    return item


def bench_world(seed: int = 20250101) -> dict[str, Any]:
    """The benchmark world: the seed world's shape with threads of 10 to 100,000 messages.

    What the hot operations need is added by :func:`tests.load.operations.add_to_world`.

    The channel's main thread holds 60 messages and then the three threads' parent
    messages, so every thread gets the same channel context (the backfill limit's
    worth); each thread's run is triggered by alex's last message.
    """
    rng = random.Random(seed)
    main = [_message(rng) for _ in range(60)]
    main += [
        {"key": f"p{size}", "author": "sam", "content": f"Export failed again, case {size} ✅"}
        for size in SIZES
    ]
    threads: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    generated: list[dict[str, Any]] = []
    for size in SIZES:
        if size <= GENERATED:
            messages = [_message(rng) for _ in range(size)]
            generated = list(messages)
        else:
            # Larger threads repeat the largest generated one (fresh dicts: the loader
            # annotates them), which keeps the world's generation quick.
            messages = [
                {**m, "attachments": [dict(a) for a in m["attachments"]]}
                if "attachments" in m
                else dict(m)
                for m in itertools.islice(itertools.cycle(generated), size)
            ]
        messages.append(
            {
                "key": f"trigger{size}",
                "author": "alex",
                "content": "@lotse please summarise the thread and suggest next "
                "steps — Grüße, 日本語 ok 🚀",
            }
        )
        threads.append(
            {
                "key": f"t{size}",
                "channel": "support/general",
                "parent": f"p{size}",
                "messages": messages,
            }
        )
        sessions.append(
            {
                "key": f"s{size}",
                "thread": f"t{size}",
                "agent": "lotse",
                "started": True,
                "current": True,
            }
        )
        runs.append(
            {
                "key": f"r{size}",
                "thread": f"t{size}",
                "agent": "lotse",
                "session": f"s{size}",
                "trigger": f"trigger{size}",
                "triggered_by": "alex",
                "trigger_kind": "message",
                "state": "running",
            }
        )
    world: dict[str, Any] = {
        "people": [
            {
                "handle": "robin",
                "display_name": "Robin",
                "email": "robin@example.com",
                "owner": True,
                "token": "tok-robin",
            },
            {
                "handle": "alex",
                "display_name": "Alex Ünal",
                "email": "alex@example.com",
                "token": "tok-alex",
            },
            {
                "handle": "sam",
                "display_name": "Sam 山田",
                "email": "sam@example.com",
                "token": "tok-sam",
            },
            {
                "handle": "writer",
                "display_name": "Writer",
                "email": "writer@example.com",
                "token": "tok-writer",
            },
        ],
        "agents": [
            {
                "handle": "lotse",
                "display_name": "Lotse",
                "owner": "robin",
                "home_channel": "support/general",
                "token": AGENT_TOKEN,
            }
        ],
        "spaces": [
            {
                "name": "support",
                "channels": [{"name": "general", "operator": "lotse", "messages": main}],
            }
        ],
        "grants": [
            {
                "key": "g-alex-support",
                "subject": "alex",
                "target": "space:support",
                "level": "trigger",
            },
            {
                "key": "g-sam-general",
                "subject": "sam",
                "target": "channel:support/general",
                "level": "trigger",
            },
            {
                "key": "g-writer-general",
                "subject": "writer",
                "target": "channel:support/general",
                "level": "write",
            },
        ],
        "threads": threads,
        "sessions": sessions,
        "runs": runs,
    }
    operations.add_to_world(world)
    return world


# The tables a world fills, kept from autovacuum by --without-statistics.
_LOADED_TABLES = ("messages", "attachments", "threads", "runs", "principals", "api_tokens")


def prepare_database(
    cluster: PostgresCluster, name: str = DATABASE, *, statistics: bool = True
) -> tuple[str, dict[str, str]]:
    """Create and migrate database ``name`` and load :func:`bench_world` through the
    product's loader (what ``python -m app world load`` runs after parsing the file,
    its ANALYZE included; nothing else analyses or vacuums); URL and ids.

    Without ``statistics`` the loader's ANALYZE is skipped and autovacuum is off for
    the loaded tables: the state between a bulk load and the first statistics, kept
    (``--without-statistics``; issue 22).
    """
    run_sql(cluster.admin_url, f'CREATE DATABASE "{name}"')
    database_url = cluster.url(name)
    upgrade(database_url)
    if not statistics:
        run_sql(
            database_url,
            *(f"ALTER TABLE {table} SET (autovacuum_enabled = off)" for table in _LOADED_TABLES),
        )
    return database_url, load_world_data(database_url, bench_world(), analyze=statistics)


def statistics_after_load(database_url: str) -> str:
    """What the planner knows of ``messages`` now (rows estimated, last (auto)analyse)."""
    rows = run_sql(
        database_url,
        "SELECT c.reltuples::bigint, s.n_live_tup, s.last_analyze IS NOT NULL, "
        "s.last_autoanalyze IS NOT NULL FROM pg_class c "
        "JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'messages'",
    )
    estimated, live, analysed, autoanalysed = rows[0]
    return (
        f"`messages`: {live:,} rows, the planner's estimate {estimated:,}; "
        f"analysed by the loader: {'yes' if analysed else 'no'}, by autovacuum: "
        f"{'yes' if autoanalysed else 'no'}"
    )
