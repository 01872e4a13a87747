"""Benchmark of getRunContext beside a bare OPA decision (``make bench``).

Run it with ``python -m tests.load.bench`` (``--help`` lists the knobs). It is bounded
(every case stops after a fixed number of requests or a time cap, whichever comes
first), uses loopback only (127.0.0.1) and cleans up after itself, also on error or
Ctrl-C. What it does, in order:

1. Starts a throwaway PostgreSQL cluster and the real OPA (``.bin/opa`` serving
   ``policies/``), the same way the integration tests do, migrates a database and
   loads a generated world through the product's loader (``load_world_data``, what
   ``python -m app world load`` runs, its ANALYZE included; the harness analyses
   nothing itself): the seed world's shape (space ``support`` with channel
   ``general`` operated by agent ``lotse``; ``alex`` trigger on the space, ``sam``
   trigger on the channel, ``writer`` write only) with threads of 10, 100, 1,000 and
   100,000 earlier messages before the triggering message by ``alex``, each with a
   run of ``lotse``, and what the hot operations need (``tests/load/operations.py``).
   Contents vary in length (a few exceed ``agent.context_message_max_bytes`` and are
   cut) and contain multi-byte characters.
2. Starts the app with ``python -m app serve`` in a separate process (rate limits
   off, log level WARNING), so that the load generator does not compete with the
   server for one GIL, and measures getRunContext on the 100,000 thread right after
   the load, before anything else has read.
3. Measures, in-process, the OPA round trips and SQL statements one request costs
   (the app's own counters) per thread size and per hot operation, and the statements
   PostgreSQL actually received. It records the inputs the app sends to OPA, so the
   bare OPA decisions below use realistic input from the same world.
4. Measures getRunContext for each thread size at concurrency 1 and 8 (threads with
   one keep-alive ``requests.Session`` each), a bare OPA ``authz/decision`` and
   ``runcontext/evaluate`` over HTTP with the same client, the trivial policy on its
   own OPA (``tests/load/trivial.py``), every hot operation, the interleaved reading
   and the I/O floor.
5. Profiles the reference case (100 messages at concurrency 1) in-process with
   cProfile: the ASGI app is driven directly on one thread (sync handlers are run
   inline instead of in the thread pool, so one profiler sees the whole request).
6. Prints the tables and writes ``docs/benchmarks.md``.

A separate part, ``tests/load/overhead.py`` (issue 12), then measures what metrics and
tracing cost getRunContext and appends its section at the end of the report; another,
``tests/load/provenance.py`` (issue 24), measures whether OPA's provenance or decision
metadata names the policy revision of a decision more cheaply.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import datetime as dt
import functools
import io
import itertools
import json
import os
import platform
import pstats
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import requests
import uvicorn

from app.config import Settings, load_settings
from app.logs import configure_logging
from app.main import Application, SnakeCaseResolver, create_app
from app.server import worker_count
from repositories.migrate import upgrade
from tests.load import bounds, floor, operations, overhead, provenance, ratelimit
from tests.load.interleave import interleaved_rounds
from tests.load.trivial import TRIVIAL_INPUT, TRIVIAL_PATH, opa_process, trivial_opa
from tests.support.services import (
    REPO_ROOT,
    AppProcess,
    OpaServer,
    PostgresCluster,
    ServiceError,
    free_port,
    run_sql,
)
from world import load_world_data

SIZES = (10, 100, 1000, 100_000)
# The case the targets are stated for: 100 earlier messages, a full window of 50 thread
# and 50 channel elements. Its second OPA input is the bare runcontext/evaluate input.
REFERENCE = 100
# Threads up to this size get generated contents; larger ones repeat the largest of
# them. Every thread is in the world, loaded through the product's loader.
GENERATED = 1000
CONCURRENCIES = (1, 8)
AGENT_TOKEN = "tok-lotse"
DATABASE = "bench"
DECISION_PATH = "authz/decision"
EVALUATE_PATH = "runcontext/evaluate"
REQUEST_TIMEOUT = 10.0
COUNTED_REQUESTS = 9
# Every rate-limit class is off: the benchmark measures the work, not the limiter.
RATE_CLASSES = ("agent_runtime", "chat", "admin", "authz", "session_context", "runner")
OUTPUT = REPO_ROOT / "docs" / "benchmarks.md"
FLASK_NAME = "getRunContext, FlaskApp"
INTERLEAVED_CONTEXT = "getRunContext, interleaved"
INTERLEAVED_BARE = "bare OPA authz/decision, interleaved"
INTERLEAVED_TRIVIAL = "trivial policy on its own OPA, interleaved"
INTERLEAVED_LARGEST = f"getRunContext {max(SIZES)}, interleaved"
TRIVIAL = "trivial policy on its own OPA"
RIGHT_AFTER_LOAD = "getRunContext, right after the load"
# The same statements and OPA calls on raw drivers (tests/load/floor.py), interleaved
# with the bare decision.
FLOOR = "I/O floor: its statements and OPA calls on raw drivers, interleaved"
FLOOR_BARE = "bare OPA authz/decision, interleaved with the floor"
# Each interleaved case beside the bare decision of its own rounds.
INTERLEAVED_PAIRS = {
    INTERLEAVED_CONTEXT: INTERLEAVED_BARE,
    INTERLEAVED_LARGEST: INTERLEAVED_BARE,
    FLOOR: FLOOR_BARE,
}

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


class BenchError(RuntimeError):
    """The benchmark could not run as designed (a request failed, a check differed)."""


# ------------------------------------------------------------------------------ world


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


# ---------------------------------------------------------------------------- machine


def _meminfo_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                kib = int(line.split()[1])
                return f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return "unknown"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _opa_version() -> str:
    try:
        out = subprocess.run(
            [str(REPO_ROOT / ".bin" / "opa"), "version"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine skews numbers)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine() -> dict[str, str]:
    """Facts about the machine the numbers come from."""
    return {
        "cores (nproc)": str(os.cpu_count() or "unknown"),
        "memory": _meminfo_total(),
        "CPU": _cpu_model(),
        "kernel": platform.release(),
        "Python": platform.python_version(),
        "OPA": _opa_version(),
    }


# ----------------------------------------------------------------------- measurement


@dataclass
class Result:
    """Latencies of one case."""

    name: str
    size: int | None
    concurrency: int
    latencies_ms: list[float]
    wall_seconds: float
    capped: bool = False

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile (linear interpolation between closest ranks)."""
        data = sorted(self.latencies_ms)
        if not data:
            return float("nan")
        rank = (len(data) - 1) * p / 100
        low = int(rank)
        high = min(low + 1, len(data) - 1)
        return data[low] + (data[high] - data[low]) * (rank - low)

    @property
    def rps(self) -> float:
        """Completed requests per second of wall time."""
        return len(self.latencies_ms) / self.wall_seconds if self.wall_seconds else 0.0


def _session() -> requests.Session:
    """A keep-alive session that ignores proxy settings (loopback only, no env scan)."""
    session = requests.Session()
    session.trust_env = False
    return session


def run_load(
    name: str,
    size: int | None,
    call: Callable[[requests.Session], None],
    total: int,
    concurrency: int,
    max_seconds: float,
) -> Result:
    """Issue ``total`` calls from ``concurrency`` threads (one keep-alive session each).

    Stops early at ``max_seconds``. Any failed call aborts the case.
    """
    lock = threading.Lock()
    issued = 0
    barrier = threading.Barrier(concurrency)
    latencies: list[list[float]] = [[] for _ in range(concurrency)]
    spans: list[tuple[float, float]] = [(0.0, 0.0)] * concurrency
    errors: list[BaseException] = []
    deadline = 0.0
    capped = False

    def worker(index: int) -> None:
        nonlocal issued, deadline, capped
        session = _session()
        mine = latencies[index]
        try:
            call(session)  # opens this thread's keep-alive connection, not measured
            barrier.wait()
            with lock:
                if deadline == 0.0:
                    deadline = time.monotonic() + max_seconds
            start = time.perf_counter()
            while True:
                with lock:
                    if issued >= total or errors:
                        break
                    if time.monotonic() > deadline:
                        capped = True
                        break
                    issued += 1
                begin = time.perf_counter()
                call(session)
                mine.append((time.perf_counter() - begin) * 1000)
            spans[index] = (start, time.perf_counter())
        except BaseException as exc:
            with lock:
                errors.append(exc)
            barrier.abort()
        finally:
            session.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max_seconds + 60)
    real_errors = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
    if real_errors or errors:
        raise BenchError(
            f"{name} (size {size}, c={concurrency}) failed: {(real_errors or errors)[0]!r}"
        )
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    flat = [latency for part in latencies for latency in part]
    return Result(name, size, concurrency, flat, wall, capped)


def run_interleaved(
    cases: list[tuple[str, Callable[[requests.Session], None]]],
    size: int | None,
    rounds: int,
    max_seconds: float,
    seed: int = 20261201,
) -> list[Result]:
    """Call every case once per round, in a shuffled order, on one thread (c=1); see
    :mod:`tests.load.interleave` for why.

    Each case has its own keep-alive session, opened before timing starts. Stops early
    at ``max_seconds``; any failed call aborts.
    """
    sessions = [_session() for _ in cases]
    try:
        calls = [
            functools.partial(call, session)
            for (_name, call), session in zip(cases, sessions, strict=True)
        ]
        for call in calls:
            call()  # opens the session's connection, not measured
        latencies, capped = interleaved_rounds(
            calls, rounds, random.Random(seed), max_seconds=max_seconds
        )
    finally:
        for session in sessions:
            session.close()
    return [
        # req/s of one case alone: its own time, without the other cases' requests.
        Result(name, size, 1, mine, sum(mine) / 1000, capped)
        for (name, _call), mine in zip(cases, latencies, strict=True)
    ]


def run_floor(
    settings: Settings,
    run_id: str,
    decision_input: dict[str, Any],
    rounds: int,
    max_seconds: float,
) -> list[Result]:
    """The I/O floor of a read (:mod:`tests.load.floor`) interleaved with a bare decision.

    A fresh app serves two reads in-process to record their round trips; the floor
    replays the second one's. Raises BenchError when the recording fails.
    """
    app = create_app(settings)
    try:
        path = f"/api/v1/runs/{run_id}/context"
        try:
            recording = floor.record_read(app, lambda: _asgi_get(app, path))
        except RuntimeError as exc:
            raise BenchError(f"recording the floor failed: {exc}") from exc
    finally:
        app.services.close()
    opa_url = settings.text("opa.url")
    with floor.FloorRead(settings.text("database.url"), opa_url, recording) as replay:
        return run_interleaved(
            [
                (FLOOR, lambda _session: replay()),
                (FLOOR_BARE, opa_call(opa_url, DECISION_PATH, decision_input)),
            ],
            REFERENCE,
            rounds,
            max_seconds,
        )


def context_call(base_url: str, run_id: str) -> Callable[[requests.Session], None]:
    """One getRunContext request with the agent's token; fails on anything but 200."""
    url = f"{base_url}/api/v1/runs/{run_id}/context"
    headers = {"Authorization": f"Bearer {AGENT_TOKEN}"}

    def call(session: requests.Session) -> None:
        response = session.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise BenchError(f"getRunContext answered {response.status_code}")

    return call


def opa_call(
    opa_url: str, path: str, policy_input: dict[str, Any]
) -> Callable[[requests.Session], None]:
    """One bare OPA evaluation over HTTP, parsed like the app's client parses it."""
    url = f"{opa_url}/v1/data/{path}"
    body = json.dumps({"input": policy_input}, separators=(",", ":"))
    headers = {"Content-Type": "application/json"}

    def call(session: requests.Session) -> None:
        response = session.post(url, data=body, headers=headers, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200 or "result" not in response.json():
            raise BenchError(f"OPA {path} answered {response.status_code} or undefined")

    return call


# ------------------------------------------------------------------------- processes


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


@contextlib.contextmanager
def app_process(
    database_url: str, opa_url: str, command: tuple[str, ...] = ("app", "serve")
) -> Iterator[str]:
    """``python -m app serve`` (or another module) in its own process; yields its URL."""
    env = {key: value for key, value in os.environ.items() if key != "CONFIG_FILE"}
    env.update(
        {
            "DATABASE_URL": database_url,
            "OPA_URL": opa_url,
            "LOG_LEVEL": "WARNING",
            **{f"RATE_LIMIT_{name.upper()}_PER_MINUTE": "0" for name in RATE_CLASSES},
            "PYTHONUNBUFFERED": "1",
        }
    )
    with tempfile.TemporaryDirectory(prefix="bench-app-") as work:
        log_path = Path(work) / "app.log"
        try:
            with AppProcess.start(command, env, log_path) as app:
                try:
                    app.wait_ready()
                except ServiceError as exc:
                    raise BenchError(str(exc)) from exc
                yield app.base_url
        finally:
            tail = log_path.read_text(errors="replace").strip() if log_path.exists() else ""
            if tail:
                print(f"app log (last lines):\n{tail[-1500:]}", file=sys.stderr)


@contextlib.contextmanager
def opa_without_decision_logs() -> Iterator[str]:
    """A second OPA on the same policies with decision logs off; yields its URL."""
    try:
        with opa_process(REPO_ROOT / "policies") as url:
            yield url
    except RuntimeError as exc:
        raise BenchError(str(exc)) from exc


@contextlib.contextmanager
def app_thread(app: Application) -> Iterator[str]:
    """``app`` under uvicorn in a daemon thread of this process (as the tests do)."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_config=None, access_log=False, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise BenchError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# ---------------------------------------------------------------- costs per request


@dataclass
class Cost:
    """What one getRunContext request of a thread size costs and returns."""

    size: int
    opa_calls: int
    sql_statements: int
    pg_statements: list[tuple[float, str]]
    thread_items: int
    channel_items: int
    truncated_before_seq: int | None
    cut_items: int
    response_bytes: int
    inputs: dict[str, dict[str, Any]] = field(repr=False, default_factory=dict)

    @property
    def pg_ms(self) -> float:
        """Server-side execution time of all statements of the request."""
        return sum(ms for ms, _ in self.pg_statements)


_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[\d+\] ", re.M)
_DURATION = re.compile(r"LOG:  duration: ([0-9.]+) ms  statement: (.*)", re.S)
_UUID = re.compile(r"'?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'?(::uuid)?")


def _statement_label(sql: str) -> str:
    """A short, content-free label of a logged statement."""
    text = " ".join(sql.split())
    text = _UUID.sub("<id>", text)
    text = re.sub(r"ARRAY\[[^\]]*\]", "ARRAY[...]", text)
    tables = re.findall(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)", text)
    seen: list[str] = []
    for table in tables:
        if table not in seen and table not in {"w", "p", "pg", "c", "page"}:
            seen.append(table)
    head = text[:48]
    return f"{head}{'...' if len(text) > 48 else ''}" + (
        f" [{', '.join(seen[:6])}]" if seen else ""
    )


def _pg_statements_logged(log_path: Path, offset: int) -> list[tuple[float, str]]:
    with log_path.open("rb") as log:
        log.seek(offset)
        text = log.read().decode("utf-8", errors="replace")
    entries: list[tuple[float, str]] = []
    for chunk in _LOG_LINE.split(text):
        match = _DURATION.match(chunk.strip())
        if match:
            entries.append((float(match.group(1)), _statement_label(match.group(2))))
    return entries


def _median_statements(entries: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """Split the log of :data:`COUNTED_REQUESTS` equal requests; median time per statement."""
    per_request, rest = divmod(len(entries), COUNTED_REQUESTS)
    if rest or not per_request:
        raise BenchError(f"{len(entries)} logged statements for {COUNTED_REQUESTS} requests")
    requests_ = [entries[i * per_request : (i + 1) * per_request] for i in range(COUNTED_REQUESTS)]
    labels = [label for _, label in requests_[0]]
    if any([label for _, label in r] != labels for r in requests_):
        raise BenchError("requests of one size sent different statements")
    return [(statistics.median(r[i][0] for r in requests_), labels[i]) for i in range(per_request)]


def measure_costs(
    app: Application, cluster: PostgresCluster, runs: dict[int, str]
) -> dict[int, Cost]:
    """Per size: OPA calls, SQL statements (app counters and PostgreSQL's log) of one request.

    :data:`COUNTED_REQUESTS` requests per size are counted; PostgreSQL logs every
    statement with its server-side duration (``log_min_duration_statement = 0``) during
    them only, and the median per statement is kept. The OPA inputs of the last request
    are kept for the bare OPA measurements.
    """
    services = app.services
    captured: dict[str, dict[str, Any]] = {}
    original_evaluate = services.opa.evaluate

    # The policy gateway's one call into the client (it asks for provenance).
    def recording_evaluate(path: str, input: dict[str, Any], *, correlation_id: str = "") -> Any:
        captured[path] = input
        return original_evaluate(path, input, correlation_id=correlation_id)

    services.opa.evaluate = recording_evaluate  # type: ignore[method-assign]
    log_path = cluster.datadir / "server.log"
    costs: dict[int, Cost] = {}
    try:
        with app_thread(app) as base_url, _session() as session:
            headers = {"Authorization": f"Bearer {AGENT_TOKEN}"}
            for size, run_id in runs.items():
                url = f"{base_url}/api/v1/runs/{run_id}/context"
                for _ in range(3):  # warm: pool connections, first-use statements
                    session.get(url, headers=headers, timeout=REQUEST_TIMEOUT).raise_for_status()
                run_sql(
                    cluster.admin_url,
                    "ALTER SYSTEM SET log_min_duration_statement = 0",
                    "SELECT pg_reload_conf()",
                )
                time.sleep(0.3)
                offset = log_path.stat().st_size
                opa_before, sql_before = services.opa.calls, services.sql_statements
                for _ in range(COUNTED_REQUESTS):
                    captured.clear()
                    response = session.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
                    response.raise_for_status()
                opa_calls, opa_rest = divmod(services.opa.calls - opa_before, COUNTED_REQUESTS)
                sql, sql_rest = divmod(services.sql_statements - sql_before, COUNTED_REQUESTS)
                if opa_rest or sql_rest:
                    raise BenchError("requests of one size differ in OPA calls or statements")
                time.sleep(0.3)
                pg = _median_statements(_pg_statements_logged(log_path, offset))
                run_sql(
                    cluster.admin_url,
                    "ALTER SYSTEM RESET log_min_duration_statement",
                    "SELECT pg_reload_conf()",
                )
                if response.status_code != 200:
                    raise BenchError(
                        f"getRunContext for size {size} answered {response.status_code}"
                    )
                body = response.json()
                elements = [*body["thread_context"], *body.get("channel_context", [])]
                costs[size] = Cost(
                    size=size,
                    opa_calls=opa_calls,
                    sql_statements=sql,
                    pg_statements=pg,
                    thread_items=len(body["thread_context"]),
                    channel_items=len(body.get("channel_context", [])),
                    truncated_before_seq=body.get("truncated_before_seq"),
                    cut_items=sum(1 for e in elements if e.get("truncated")),
                    response_bytes=len(response.content),
                    inputs={
                        path: json.loads(json.dumps(value)) for path, value in captured.items()
                    },
                )
    finally:
        services.opa.evaluate = original_evaluate  # type: ignore[method-assign]
    opa_counts = {cost.opa_calls for cost in costs.values()}
    sql_counts = {cost.sql_statements for cost in costs.values()}
    if opa_counts != {2} or len(sql_counts) != 1:
        raise BenchError(
            f"cost depends on thread length or is not 2 OPA calls: "
            f"{[(c.size, c.opa_calls, c.sql_statements) for c in costs.values()]}"
        )
    return costs


@dataclass
class OpaTimers:
    """OPA's own timers for one path (median of several ``?metrics=true`` calls)."""

    path: str
    input_bytes: int
    handler_ms: float
    eval_ms: float
    input_parse_ms: float


def opa_timers(opa_url: str, path: str, policy_input: dict[str, Any], count: int = 25) -> OpaTimers:
    """Ask OPA how long it spends on ``path`` itself (server handler, parse, evaluation)."""
    body = json.dumps({"input": policy_input}, separators=(",", ":"))
    samples: list[dict[str, float]] = []
    with _session() as session:
        for _ in range(count):
            response = session.post(
                f"{opa_url}/v1/data/{path}?metrics=true",
                data=body,
                headers={"Content-Type": "application/json"},
                timeout=REQUEST_TIMEOUT,
            )
            response.raise_for_status()
            samples.append(response.json().get("metrics", {}))

    def median(name: str) -> float:
        return statistics.median(sample.get(name, 0) for sample in samples) / 1e6

    return OpaTimers(
        path=path,
        input_bytes=len(body.encode()),
        handler_ms=median("timer_server_handler_ns"),
        eval_ms=median("timer_rego_query_eval_ns"),
        input_parse_ms=median("timer_rego_input_parse_ns"),
    )


# -------------------------------------------------------------------- FlaskApp variant


def _flask_compatible(function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a handler so that its Starlette response becomes a Flask response."""
    import flask
    from starlette.responses import Response as StarletteResponse

    @functools.wraps(function)
    def handler(*args: Any, **kwargs: Any) -> Any:
        response = function(*args, **kwargs)
        if isinstance(response, StarletteResponse):
            headers = [(k, v) for k, v in response.headers.items() if k != "content-length"]
            return flask.Response(
                bytes(response.body), status=response.status_code, headers=headers
            )
        return response

    return handler


def create_flask_app(settings: Settings) -> Application:
    """The same service built on Connexion's ``FlaskApp`` (WSGI bridge) for comparison.

    Mirrors :func:`app.main.create_app`; only the handlers' Starlette responses are
    converted, since Flask cannot send them.
    """
    import connexion
    from connexion.utils import get_function_from_name

    from app.http.routes import SPEC_PATH, MethodIndex, load_routes, load_spec
    from app.http.validation import validator_map
    from app.main import _error_handler
    from app.services import build_services

    spec = load_spec()
    services = build_services(settings, load_routes(spec))
    flask_app = connexion.FlaskApp(__name__, specification_dir=str(SPEC_PATH.parent))
    flask_app.add_api(
        SPEC_PATH.name,
        resolver=SnakeCaseResolver(
            function_resolver=lambda name: _flask_compatible(get_function_from_name(name))
        ),
        strict_validation=True,
        validate_responses=False,
        validator_map=validator_map(),
        swagger_ui_options=None,
    )
    handle = _error_handler(MethodIndex(spec))
    for status in (401, 404, 405, 406, 415):
        flask_app.add_error_handler(status, handle)
    flask_app.add_error_handler(Exception, handle)
    return Application(services, flask_app)


def serve_flask() -> int:
    """``--serve-flask``: serve the FlaskApp variant from the environment's settings."""
    settings = load_settings()
    configure_logging(settings.text("log.level"))
    uvicorn.run(
        create_flask_app(settings),
        host=settings.text("host"),
        port=settings.integer("port"),
        log_config=None,
        access_log=False,
        lifespan="off",
    )
    return 0


# ------------------------------------------------------------------------- profiling


async def _asgi_get(app: Application, path: str) -> tuple[int, bytes]:
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"accept", b"*/*"),
            (b"authorization", f"Bearer {AGENT_TOKEN}".encode()),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
    }
    received = False
    status = 0
    body = bytearray()

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            return {"type": "http.disconnect"}
        received = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(body)


@dataclass
class Profile:
    """cProfile of the slowest case, driven in-process on one thread."""

    requests: int
    plain_ms: float
    profiled_ms: float
    stats: pstats.Stats
    buckets: list[tuple[str, float]]
    cumulative: list[tuple[str, float, float, float]]
    own: list[tuple[str, float, float, float]]
    opa_wait_ms: float
    pg_ms: float
    request_ms: float
    handler_ms: float
    parts: list[tuple[str, float]]


_Key = tuple[str, int, str]
_Entry = tuple[int, int, float, float, dict[_Key, tuple[int, int, float, float]]]


def _find(raw: dict[_Key, _Entry], file_suffix: str, name: str) -> _Key:
    for key in raw:
        if key[0].endswith(file_suffix) and key[2] == name:
            return key
    raise BenchError(f"{file_suffix}:{name} is not in the profile")


def _callee_time(raw: dict[_Key, _Entry], parent: _Key, where: Callable[[_Key], bool]) -> float:
    """Cumulative time of ``parent``'s direct callees selected by ``where``."""
    return sum(
        entry[4][parent][3] for key, entry in raw.items() if parent in entry[4] and where(key)
    )


def _parts(
    raw: dict[_Key, _Entry], request: float, pg: float, opa_wait: float
) -> list[tuple[str, float]]:
    """Where one request's time goes, as disjoint parts (seconds over all requests)."""
    handler = _find(raw, "app/handlers/runs.py", "get_run_context")
    use_case = _find(raw, "app/usecases/run_context.py", "__call__")
    begin = _find(raw, "app/handlers/common.py", "begin")
    respond = _find(raw, "app/handlers/common.py", "json_response")
    query = _find(raw, "app/opa_client.py", "evaluate")
    handler_s, use_case_s = raw[handler][3], raw[use_case][3]
    begin_s, respond_s, opa_s = raw[begin][3], raw[respond][3], raw[query][3]
    repositories = str(REPO_ROOT / "repositories") + os.sep
    sql_s = begin_s + _callee_time(raw, use_case, lambda key: key[0].startswith(repositories))
    return [
        (
            "Connexion and Starlette middleware, correlation id and services wrappers "
            "(outside the handler)",
            request - handler_s,
        ),
        (
            "SQL: token lookup, run with the actor's facts, trigger with both windows and "
            "follow-ups, the authors' facts (SQLAlchemy and psycopg2)",
            sql_s,
        ),
        ("  of which psycopg2 calls (PostgreSQL's work and the wait)", pg),
        ("  of which SQLAlchemy, pool, rows and typecasting in Python", sql_s - pg),
        ("OPA: two calls (`OpaClient.evaluate`)", opa_s),
        ("  of which socket send/receive (OPA's work and the wait)", opa_wait),
        ("  of which the client in Python (transport, HTTP parsing, orjson)", opa_s - opa_wait),
        (
            "Use case besides SQL and OPA: planning, input building, shaping, element assembly",
            use_case_s - (sql_s - begin_s) - opa_s,
        ),
        ("Response encoding (`json_response`: orjson)", respond_s),
        (
            "Python outside PostgreSQL and OPA (the request less the two waits)",
            request - pg - opa_wait,
        ),
    ]


def _short(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name
    path = filename
    marker = "site-packages/"
    if marker in path:
        path = path.split(marker, 1)[1]
    elif path.startswith(str(REPO_ROOT)):
        path = path[len(str(REPO_ROOT)) + 1 :]
    else:
        path = Path(path).name
    return f"{path}:{line}({name})"


def _bucket(key: tuple[str, int, str]) -> str:
    filename, _, name = key
    if filename == "~":
        if "psycopg2" in name:
            return "PostgreSQL: psycopg2 execute/commit/rollback (network wait included)"
        if "select.epoll" in name:
            # The event loop's selector: the in-process ASGI calls wait here, not on OPA.
            return "event loop: selector (asyncio)"
        if "_socket.socket" in name or "select.poll" in name:
            # Only the OPA transport uses Python sockets (psycopg2 talks to PostgreSQL in C);
            # select.poll is its check for a connection OPA dropped while it was idle.
            return "OPA: socket send/receive (network wait included)"
        if "_json" in name or "json" in name:
            return "json (C accelerator)"
        return "builtins (C: str, dict, regex, hashing, ...)"
    marker = "site-packages/"
    if marker in filename:
        package = filename.split(marker, 1)[1].split("/", 1)[0]
        return f"{package}"
    if filename.startswith(str(REPO_ROOT)):
        parts = Path(filename).relative_to(REPO_ROOT).parts
        return "/".join(parts[:2]) if parts[0] == "app" and len(parts) > 2 else parts[0]
    return f"stdlib {Path(filename).stem}"


def profile_case(app: Application, run_id: str, count: int) -> Profile:
    """Profile ``count`` getRunContext requests of one run, one at a time, in-process."""
    import connexion.decorators.main as connexion_main

    async def inline(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    path = f"/api/v1/runs/{run_id}/context"
    original = connexion_main.run_in_threadpool
    connexion_main.run_in_threadpool = inline
    loop = asyncio.new_event_loop()
    try:

        async def many(n: int) -> None:
            for _ in range(n):
                status, _body = await _asgi_get(app, path)
                if status != 200:
                    raise BenchError(f"in-process getRunContext answered {status}")

        loop.run_until_complete(many(30))
        begin = time.perf_counter()
        loop.run_until_complete(many(count))
        plain_ms = (time.perf_counter() - begin) * 1000 / count
        profiler = cProfile.Profile()
        begin = time.perf_counter()
        profiler.enable()
        loop.run_until_complete(many(count))
        profiler.disable()
        profiled_ms = (time.perf_counter() - begin) * 1000 / count
    finally:
        loop.close()
        connexion_main.run_in_threadpool = original
    stats = pstats.Stats(profiler, stream=io.StringIO())
    raw: dict[_Key, _Entry] = stats.stats  # type: ignore[attr-defined]
    total_own = sum(entry[2] for entry in raw.values())
    buckets: dict[str, float] = {}
    for key, (_cc, _nc, own, _cum, _callers) in raw.items():
        buckets[_bucket(key)] = buckets.get(_bucket(key), 0.0) + own
    ordered = sorted(buckets.items(), key=lambda item: -item[1])
    scale = 1000 / count
    # Leave out the pass-through chain (event loop, middlewares) whose cumulative time
    # is the whole request: what remains shows where the handler's time goes.
    request_ms = raw[_find(raw, "tests/load/bench.py", "_asgi_get")][3] * scale
    handler_ms = raw[_find(raw, "app/handlers/runs.py", "get_run_context")][3] * scale
    by_cum = sorted(
        (item for item in raw.items() if item[1][3] * scale <= handler_ms),
        key=lambda item: -item[1][3],
    )
    by_own = sorted(raw.items(), key=lambda item: -item[1][2])
    pg_ms = sum(own for name, own in ordered if name.startswith("PostgreSQL")) * scale
    opa_ms = sum(own for name, own in ordered if name.startswith("OPA")) * scale
    assert total_own > 0
    parts = _parts(raw, request_ms / scale, pg_ms / scale, opa_ms / scale)
    return Profile(
        requests=count,
        plain_ms=plain_ms,
        profiled_ms=profiled_ms,
        stats=stats,
        buckets=[(name, own * scale) for name, own in ordered],
        cumulative=[(_short(k), v[1] / count, v[2] * scale, v[3] * scale) for k, v in by_cum[:40]],
        own=[(_short(k), v[1] / count, v[2] * scale, v[3] * scale) for k, v in by_own[:20]],
        opa_wait_ms=opa_ms,
        pg_ms=pg_ms,
        request_ms=request_ms,
        handler_ms=handler_ms,
        parts=[(name, seconds * scale) for name, seconds in parts],
    )


# ---------------------------------------------------------------------------- report


def _calls(value: float) -> str:
    return str(round(value)) if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def _fmt(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def results_table(results: list[Result], opa_by_c: dict[int, Result]) -> str:
    """The main table: latency percentiles, throughput and ratio to bare OPA."""
    lines = [
        "| case | earlier messages | concurrency | requests | p50 ms | p95 ms | p99 ms "
        "| req/s | p50 / bare OPA p50 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    by_name = {r.name: r for r in results}
    for result in results:
        paired = INTERLEAVED_PAIRS.get(result.name)
        bare = by_name.get(paired) if paired else opa_by_c.get(result.concurrency)
        ratio = (
            f"{result.percentile(50) / bare.percentile(50):.1f}x"
            if bare is not None
            and (result.name.startswith("getRunContext") or result.name in INTERLEAVED_PAIRS)
            else ""
        )
        size = str(result.size) if result.size is not None else ""
        requests_done = f"{len(result.latencies_ms)}" + (" (time cap)" if result.capped else "")
        lines.append(
            f"| {result.name} | {size} | {result.concurrency} | {requests_done} "
            f"| {_fmt(result.percentile(50))} | {_fmt(result.percentile(95))} "
            f"| {_fmt(result.percentile(99))} | {result.rps:.0f} | {ratio} |"
        )
    return "\n".join(lines)


def costs_table(costs: dict[int, Cost]) -> str:
    """Round trips and response shape per thread size."""
    lines = [
        "| earlier messages | OPA round trips | SQL statements (app counter) "
        "| statements PostgreSQL received | PostgreSQL server time ms | thread_context "
        "| channel_context | cut elements | truncated_before_seq | response bytes |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for cost in costs.values():
        lines.append(
            f"| {cost.size} | {cost.opa_calls} | {cost.sql_statements} "
            f"| {len(cost.pg_statements)} | {cost.pg_ms:.2f} "
            f"| {cost.thread_items} | {cost.channel_items} | {cost.cut_items} "
            f"| {cost.truncated_before_seq if cost.truncated_before_seq is not None else '-'} "
            f"| {cost.response_bytes} |"
        )
    return "\n".join(lines)


def statements_table(cost: Cost) -> str:
    """Every statement PostgreSQL received for one request, with its server time."""
    lines = ["| # | server ms (median) | statement (start, tables) |", "| ---: | ---: | --- |"]
    for index, (ms, label) in enumerate(cost.pg_statements, 1):
        lines.append(f"| {index} | {ms:.3f} | `{label}` |")
    return "\n".join(lines)


def opa_table(timers: list[OpaTimers]) -> str:
    """OPA's own timers per path."""
    lines = [
        "| path | input bytes | OPA handler ms | of which input parse ms "
        "| of which evaluation ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for timer in timers:
        lines.append(
            f"| `{timer.path}` | {timer.input_bytes} | {timer.handler_ms:.3f} "
            f"| {timer.input_parse_ms:.3f} | {timer.eval_ms:.3f} |"
        )
    return "\n".join(lines)


def profile_section(profile: Profile, http_p50: float | None) -> str:
    """Buckets, top cumulative and top own-time entries of the profile."""
    total = sum(ms for _, ms in profile.buckets)
    other = total - profile.pg_ms - profile.opa_wait_ms
    lines = [
        f"{profile.requests} requests of the {REFERENCE}-message case, one at a time, "
        "in-process: "
        f"{profile.plain_ms:.2f} ms per request without the profiler, "
        f"{profile.profiled_ms:.2f} ms under cProfile (the profiler inflates Python calls, "
        "not waits, so Python's share below is an upper bound). Not in the profile: "
        "uvicorn's HTTP parsing, the hop to the thread pool and the client"
        + (
            f"; for comparison, the same case over HTTP has p50 {http_p50:.2f} ms."
            if http_p50 is not None
            else "."
        ),
        "",
        f"Per request under the profiler: PostgreSQL (driver calls including the wait) "
        f"{profile.pg_ms:.2f} ms, OPA socket I/O (including the wait) "
        f"{profile.opa_wait_ms:.2f} ms, everything else (Python in this process) "
        f"{other:.2f} ms = {100 * other / total:.0f}% of {total:.2f} ms.",
        "",
        "Where the time of one request goes (ms per request under the profiler):",
        "",
        "| part | ms / request | share of the request |",
        "| --- | ---: | ---: |",
    ]
    for name, ms in profile.parts:
        lines.append(f"| {name} | {ms:.2f} | {100 * ms / profile.request_ms:.0f}% |")
    lines += [
        "",
        "Own time grouped by package (ms per request):",
        "",
        "| where | ms / request | share |",
        "| --- | ---: | ---: |",
    ]
    for name, ms in profile.buckets[:16]:
        lines.append(f"| {name} | {ms:.3f} | {100 * ms / total:.1f}% |")
    lines += [
        "",
        "Top entries by cumulative time from the handler down (ms per request; the event "
        "loop and the middleware chain above the handler span the whole request, "
        f"{profile.request_ms:.2f} ms, and are left out):",
        "",
        "| function | calls / request | own ms | cumulative ms |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, calls, own, cum in profile.cumulative[:30]:
        lines.append(f"| `{name}` | {_calls(calls)} | {own:.3f} | {cum:.3f} |")
    lines += [
        "",
        "Top entries by own time (ms per request):",
        "",
        "| function | calls / request | own ms | cumulative ms |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, calls, own, cum in profile.own:
        lines.append(f"| `{name}` | {_calls(calls)} | {own:.3f} | {cum:.3f} |")
    return "\n".join(lines)


@dataclass
class Target:
    """One target of the lean read path and whether this run meets it."""

    name: str
    measured: float
    limit: float
    at_least: bool = False
    unit: str = "x"

    @property
    def met(self) -> bool:
        """Whether the measured value is on the right side of the limit."""
        return self.measured >= self.limit if self.at_least else self.measured <= self.limit


def targets(results: list[Result], opa_by_c: dict[int, Result]) -> list[Target]:
    """The targets of the lean read path, computed from this run."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    reference, bare = ctx[(REFERENCE, 1)], opa_by_c[1]
    evaluate = next(
        r for r in results if r.name == "bare OPA runcontext/evaluate" and r.concurrency == 1
    )
    largest = max(SIZES)
    interleaved = {r.name: r for r in results if r.name in (INTERLEAVED_CONTEXT, INTERLEAVED_BARE)}
    found = [
        Target(
            f"getRunContext p50 / bare `authz/decision` p50, {REFERENCE} earlier messages, c=1",
            reference.percentile(50) / bare.percentile(50),
            8.0,
        ),
        Target(
            f"getRunContext p99 / bare `authz/decision` p99, {REFERENCE} earlier messages, c=1",
            reference.percentile(99) / bare.percentile(99),
            15.0,
        ),
        Target(
            "getRunContext p99 / bare `authz/decision` p50 (the stricter reading), c=1",
            reference.percentile(99) / bare.percentile(50),
            15.0,
        ),
        Target(
            f"getRunContext p50 at {largest:,} / p50 at {REFERENCE} earlier messages, c=1",
            ctx[(largest, 1)].percentile(50) / reference.percentile(50),
            1.1,
        ),
        Target(
            f"getRunContext req/s at c=8 / req/s at c=1, {REFERENCE} earlier messages",
            ctx[(REFERENCE, 8)].rps / reference.rps,
            1.6,
            at_least=True,
        ),
        Target(
            "bare `runcontext/evaluate` p50 / bare `authz/decision` p50, c=1",
            evaluate.percentile(50) / bare.percentile(50),
            2.0,
        ),
    ]
    if len(interleaved) == 2:
        found.insert(
            1,
            Target(
                f"the same, interleaved request by request ({REFERENCE} earlier messages, c=1)",
                interleaved[INTERLEAVED_CONTEXT].percentile(50)
                / interleaved[INTERLEAVED_BARE].percentile(50),
                8.0,
            ),
        )
    return found


HotOperations = tuple[
    list[Result], dict[str, tuple[float, float]], dict[int, Result], dict[str, list[Result]]
]


def _interleaved_ratios(rounds: list[Result] | None) -> tuple[float, float] | None:
    """(op / bare decision, op / trivial policy) p50 ratios of one interleaved block."""
    if not rounds:
        return None
    op, bare, trivial = (r.percentile(50) for r in rounds)
    return op / bare, op / trivial


def operations_table(
    results: list[Result],
    costs: dict[str, tuple[float, float]],
    trivial_by_c: dict[int, Result],
    interleaved: dict[str, list[Result]],
    opa_by_c: dict[int, Result],
) -> str:
    """Every hot operation: percentiles, ratios to both floors, round trips."""
    lines = [
        "| operation | concurrency | requests | p50 ms | p99 ms | req/s "
        "| p50 / bare `authz/decision` p50 | p50 / trivial policy p50 "
        "| interleaved: / `authz/decision` | interleaved: / trivial policy "
        "| OPA round trips | SQL statements |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        bare, trivial = opa_by_c[result.concurrency], trivial_by_c[result.concurrency]
        opa_calls, statements = costs[result.name]
        ratios = _interleaved_ratios(interleaved.get(result.name))
        paired = (
            f"{ratios[0]:.1f}x | {ratios[1]:.1f}x"
            if ratios is not None and result.concurrency == 1
            else " | "
        )
        lines.append(
            f"| {result.name} | {result.concurrency} | {len(result.latencies_ms)}"
            + (" (time cap)" if result.capped else "")
            + f" | {_fmt(result.percentile(50))} | {_fmt(result.percentile(99))} "
            f"| {result.rps:.0f} | {result.percentile(50) / bare.percentile(50):.1f}x "
            f"| {result.percentile(50) / trivial.percentile(50):.1f}x | {paired} "
            f"| {_calls(opa_calls)} | {_calls(statements)} |"
        )
    return "\n".join(lines)


def issue22_targets(
    results: list[Result],
    op_results: list[Result],
    op_costs: dict[str, tuple[float, float]],
    trivial_by_c: dict[int, Result],
    op_interleaved: dict[str, list[Result]],
) -> list[Target]:
    """The targets of issue 22, computed from this run (c=1 unless said otherwise)."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    by_name = {r.name: r for r in results}
    bare = next(r for r in results if r.name == "bare OPA authz/decision" and r.concurrency == 1)
    ops = {r.name: r for r in op_results if r.concurrency == 1}
    largest = max(SIZES)
    found = [
        Target(
            f"getRunContext p50 at {largest:,} / p50 at {REFERENCE} earlier messages "
            "(the product's own load, no extra ANALYZE)",
            ctx[(largest, 1)].percentile(50) / ctx[(REFERENCE, 1)].percentile(50),
            1.1,
        ),
        Target(
            f"{RIGHT_AFTER_LOAD}: p50 at {largest:,} / p50 at {REFERENCE} (later)",
            by_name[RIGHT_AFTER_LOAD].percentile(50) / ctx[(REFERENCE, 1)].percentile(50),
            1.1,
        ),
    ]
    if INTERLEAVED_LARGEST in by_name:
        found.append(
            Target(
                f"the same, interleaved request by request: {largest:,} / {REFERENCE} (p50)",
                by_name[INTERLEAVED_LARGEST].percentile(50)
                / by_name[INTERLEAVED_CONTEXT].percentile(50),
                1.1,
            )
        )
    if INTERLEAVED_CONTEXT in by_name:
        interleaved = by_name[INTERLEAVED_CONTEXT].percentile(50)
        found += [
            Target(
                f"interleaved getRunContext ({REFERENCE}) / `authz/decision` (p50)",
                interleaved / by_name[INTERLEAVED_BARE].percentile(50),
                6.0,
            ),
            Target(
                f"interleaved getRunContext ({REFERENCE}) / trivial policy on its own OPA (p50)",
                interleaved / by_name[INTERLEAVED_TRIVIAL].percentile(50),
                10.0,
            ),
        ]
    for name, limit in (
        ("list messages, first page", 4.0),
        ("list messages, deep before_message_id page", 4.0),
        ("post a message, new", 5.0),
        ("post a message, replayed", 5.0),
    ):
        if name in ops:
            found.append(
                Target(
                    f"{name} p50 / `authz/decision` p50 (one after the other)",
                    ops[name].percentile(50) / bare.percentile(50),
                    limit,
                )
            )
        ratios = _interleaved_ratios(op_interleaved.get(name))
        if ratios is not None:
            found.append(Target(f"{name}, interleaved / `authz/decision` (p50)", ratios[0], limit))
    for name in operations.DENIED:
        if name in op_costs:
            opa_calls, statements = op_costs[name]
            found += [
                Target(f"{name}: OPA round trips", opa_calls, 1.0, unit=""),
                Target(f"{name}: SQL statements", statements, 2.0, unit=""),
            ]
    return found


def targets_table(found: list[Target]) -> str:
    """Each target with its measured value."""
    lines = ["| target | measured | limit | met |", "| --- | ---: | ---: | --- |"]
    for target in found:
        bound = ">=" if target.at_least else "<="
        measured = f"{target.measured:.2f}{target.unit}" if target.unit else _calls(target.measured)
        verdict = "yes"
        if not target.met:
            over = target.measured - target.limit
            verdict = f"NO ({over:+.2f}{target.unit} over)" if target.unit else f"NO ({over:+g})"
        lines.append(
            f"| {target.name} | {measured} | {bound} {target.limit:g}{target.unit} | {verdict} |"
        )
    return "\n".join(lines)


def interpretation(
    results: list[Result],
    costs: dict[int, Cost],
    opa_by_c: dict[int, Result],
    timers: list[OpaTimers],
    profile: Profile | None,
) -> str:
    """A short reading of the numbers, computed from them."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    flask = {r.concurrency: r for r in results if r.name == FLASK_NAME}
    reference = costs[REFERENCE]
    evaluate = next((t for t in timers if t.path == EVALUATE_PATH), None)
    decision = next((t for t in timers if t.path == DECISION_PATH), None)
    evaluations = {
        r.name: r
        for r in results
        if r.name.startswith("bare OPA runcontext") and r.concurrency == 1
    }
    logged = evaluations.get("bare OPA runcontext/evaluate")
    quiet = evaluations.get("bare OPA runcontext/evaluate, decision logs off")
    sizes = " / ".join(f"{size:,}" for size in SIZES)
    lines = [
        f"* Cost does not grow with the thread: every size takes {reference.opa_calls} OPA "
        f"round trips and {reference.sql_statements} SQL statements; PostgreSQL receives "
        f"{len(reference.pg_statements)} (everything the driver sends). p50 at concurrency 1 "
        "is "
        + " / ".join(f"{ctx[(size, 1)].percentile(50):.2f}" for size in SIZES)
        + f" ms for {sizes} earlier messages; from 100 on every case returns the same "
        f"window ({reference.thread_items} thread and {reference.channel_items} channel "
        "elements).",
        f"* A request of the {REFERENCE} case costs "
        f"{ctx[(REFERENCE, 1)].percentile(50) / opa_by_c[1].percentile(50):.1f}x a bare OPA "
        f"`authz/decision` over HTTP at concurrency 1 (bare p50 "
        f"{opa_by_c[1].percentile(50):.2f} ms). PostgreSQL's server time for all "
        f"statements is {reference.pg_ms:.2f} ms"
        + (
            f"; OPA's own time is {decision.handler_ms:.2f} ms for the decision and "
            f"{evaluate.handler_ms:.2f} ms for the batch ({evaluate.eval_ms:.2f} ms "
            f"evaluation, {evaluate.input_bytes / 1024:.1f} KiB input)"
            if evaluate and decision
            else ""
        )
        + ". The rest is the app process and the transports."
        + (
            f" Bare `runcontext/evaluate` takes p50 {logged.percentile(50):.2f} ms with "
            f"decision logs and {quiet.percentile(50):.2f} ms without."
            if logged is not None and quiet is not None
            else ""
        ),
        "* At concurrency 8 the app ("
        + f"{worker_count(load_settings(environ={}))} uvicorn workers) serves "
        + " / ".join(f"{ctx[(size, 8)].rps:.0f}" for size in SIZES)
        + f" req/s ({sizes}) against "
        + " / ".join(f"{ctx[(size, 1)].rps:.0f}" for size in SIZES)
        + " at concurrency 1. On two cores the app, PostgreSQL, OPA and the client share "
        "the CPUs; scale out with replicas, each with its OPA sidecar (SPEC section 10).",
    ]
    floor_read = next((r for r in results if r.name == FLOOR), None)
    floor_bare = next((r for r in results if r.name == FLOOR_BARE), None)
    interleaved_ctx = next((r for r in results if r.name == INTERLEAVED_CONTEXT), None)
    if floor_read is not None and floor_bare is not None:
        floor_ms = floor_read.percentile(50)
        line = (
            f"* The I/O floor: the same {reference.sql_statements} statements and "
            f"{reference.opa_calls} OPA calls with the same parameters and inputs, sent "
            f"from one thread on a raw psycopg2 connection and a raw socket to OPA, take "
            f"p50 {floor_ms:.2f} ms, {floor_ms / floor_bare.percentile(50):.1f}x the bare "
            "decision interleaved with them: no implementation that makes these round "
            "trips on this host reads the context for less"
        )
        if interleaved_ctx is not None:
            line += (
                f"; the app's interleaved p50 ({interleaved_ctx.percentile(50):.2f} ms) "
                f"lies {interleaved_ctx.percentile(50) - floor_ms:.2f} ms above it: the "
                f"HTTP front (a {reference.response_bytes / 1024:.0f} KiB response), "
                "Connexion's middleware, SQLAlchemy, two thread hops, window planning, "
                "shaping and encoding"
            )
        lines.append(line + ".")
    if flask:
        lines.append(
            f"* Connexion `FlaskApp` on the same handler ({REFERENCE} case): p50 "
            + " / ".join(f"{r.percentile(50):.2f} ms at c={c}" for c, r in sorted(flask.items()))
            + " against `AsyncApp` "
            + " / ".join(f"{ctx[(REFERENCE, c)].percentile(50):.2f} ms" for c in sorted(flask))
            + "; throughput "
            + " / ".join(f"{r.rps:.0f}" for _, r in sorted(flask.items()))
            + " against "
            + " / ".join(f"{ctx[(REFERENCE, c)].rps:.0f}" for c in sorted(flask))
            + " req/s."
        )
    if profile is not None:
        python_ms = profile.request_ms - profile.pg_ms - profile.opa_wait_ms
        python_parts = sorted(
            (
                (name.strip().removeprefix("of which ").split(" (")[0], ms)
                for name, ms in profile.parts
                if name.startswith(("Connexion", "Use case", "Response")) or "in Python" in name
            ),
            key=lambda part: -part[1],
        )
        lines.append(
            f"* In the profile of the {REFERENCE}-message case at concurrency 1, "
            f"{100 * python_ms / profile.request_ms:.0f}% of a request is Python in the app "
            "process, not PostgreSQL's or OPA's work or the wait for them. The largest Python "
            "parts: "
            + "; ".join(f"{name} {ms:.2f} ms" for name, ms in python_parts[:3])
            + " (profiled ms; see Profile)."
        )
    return "\n".join(lines)


# Everything below this line of docs/benchmarks.md is kept when the file is rewritten:
# earlier runs worth comparing against (written by hand from an earlier render).
KEEP_MARKER = (
    "<!-- Everything below is kept by make bench:"
    " earlier runs and benchmarks measured by other commands. -->"
)


def kept_tail(output: Path) -> str:
    """The part of an existing report below :data:`KEEP_MARKER`, with the marker."""
    if not output.exists():
        return ""
    text = output.read_text(encoding="utf-8")
    index = text.find(KEEP_MARKER)
    return "" if index < 0 else "\n" + text[index:]


def render(
    started: dt.datetime,
    facts: dict[str, str],
    args: argparse.Namespace,
    results: list[Result],
    costs: dict[int, Cost],
    opa_by_c: dict[int, Result],
    timers: list[OpaTimers],
    profile: Profile | None,
    seconds: float,
    hot: HotOperations | None = None,
) -> str:
    """The whole ``docs/benchmarks.md``."""
    machine_lines = "\n".join(f"* {name}: {value}" for name, value in facts.items())
    parts = [
        "# Benchmarks",
        "",
        "Generated by `make bench` (`python -m tests.load.bench`, method in its docstring "
        "and below); rerun it to refresh this file. Numbers are from one run on the machine "
        "below; compare runs on the same machine only.",
        "",
        f"Run: {started.strftime('%Y-%m-%d %H:%M UTC')}, {seconds:.0f} s in total.",
        "",
        "## Machine",
        "",
        machine_lines,
        "",
        "## Method",
        "",
        "* Throwaway PostgreSQL cluster (fsync off) and the real OPA serving `policies/` "
        "with console decision logs, both on 127.0.0.1; a generated world in the seed "
        "world's shape (space support, channel general operated by agent lotse; alex "
        "trigger on the space, sam trigger on the channel, writer write only) with threads "
        "of 10, 100, 1,000 and 100,000 earlier messages before alex's triggering message "
        "and a run of lotse in each (session started without an earlier run, so `bind`: "
        "channel context wanted, own messages included; lotse has no read grant, so the "
        "run's own reach decides what it reads). Contents vary from 20 characters to 24 KB "
        "(about 1% are cut at `agent.context_message_max_bytes`) and contain 2-, 3- and "
        "4-byte UTF-8 characters; about 5% carry an attachment; the 100,000 thread repeats "
        "the 1,000 thread's messages. The whole world, the 100,000 thread included, is "
        "loaded through the product's loader "
        "(`app.world.load_world_data`, what `python -m app world load` runs: COPY, then "
        "ANALYZE of what it filled"
        + (
            "; this run with `--without-statistics`: no ANALYZE and autovacuum off for the "
            "loaded tables, so the planner never had statistics"
            if args.without_statistics
            else ""
        )
        + "); the harness runs no VACUUM or ANALYZE of its own "
        "(the statistics the planner had are under Machine). The channel sets no "
        "backfill limit, so `channel.history_backfill_limit_default` (50) applies, and 60 "
        "main-thread messages precede the threads' parent messages.",
        f"* Right after the load: the app process starts and its first case is "
        f"getRunContext on the {max(SIZES):,} thread ({args.warmup} warm-up requests, then "
        f"{args.requests_c1} at concurrency 1), so its connections prepare and plan their "
        "statements with whatever statistics the load left.",
        "* The app runs as `python -m app serve` in its own process (Connexion `AsyncApp`, "
        f"`server.workers` at its default: {worker_count(load_settings(environ={}))} uvicorn "
        "workers on this machine, rate limits off, log level WARNING). The client is this "
        "process: one thread per concurrent caller, each with its own keep-alive "
        "`requests.Session` whose connection is opened before timing starts.",
        f"* Per thread size {args.warmup} warm-up requests at concurrency 1 and 8, then "
        f"{args.requests_c1} requests at concurrency 1 and {args.requests_c8} at "
        f"concurrency 8, each case capped at {args.case_seconds:.0f} s. Latency is the "
        "client's wall time per request; req/s is completed requests over the case's wall "
        "time.",
        "* Bare OPA: the same client posts to `/v1/data/authz/decision` the exact input the "
        f"app sent to authorize the {REFERENCE}-message request (its fact bundle included), "
        "and to "
        "`/v1/data/runcontext/evaluate` the input of that request's second, batched call; "
        "the answer is parsed as JSON like the app's client does. The latter is measured "
        "once more against a second OPA with decision logs off (the sidecar's configuration "
        "`deploy/opa/config.yaml` logs every decision to the console). The ratio column "
        "divides getRunContext's p50 by the bare `authz/decision` p50 at the same "
        "concurrency.",
        f"* Interleaved: {args.interleaved_rounds} rounds on one thread, each calling "
        f"getRunContext ({REFERENCE} case), getRunContext ({max(SIZES):,} case), the bare "
        "`authz/decision` and the trivial policy once, in a shuffled "
        "order, each on its own keep-alive session. Each hot operation likewise, "
        f"{args.operation_rounds} rounds with the bare decision and the trivial policy. "
        "The cases above run one after the other and each meets the load the shared host "
        "has at its moment; interleaved, all meet "
        "the same moments, so their ratio does not move with that load. Its req/s is one "
        "over the mean latency.",
        "* I/O floor (`tests/load/floor.py`): a fresh app serves two reads of the "
        f"{REFERENCE} case in-process while every statement and OPA call is recorded; the "
        "second read's round trips are replayed on a raw psycopg2 connection (autocommit, "
        "its statements prepared as the app prepares them, rows fetched) and a raw "
        "keep-alive socket to OPA (answers parsed by httptools and orjson), interleaved "
        f"with the bare `authz/decision` for {args.interleaved_rounds} rounds like the "
        "interleaved reading.",
        "* Cost per request is counted in-process once per size: the app's OPA and SQL "
        f"counters around {COUNTED_REQUESTS} requests served by uvicorn in a thread, and "
        "PostgreSQL's own log (`log_min_duration_statement = 0`) for the statements it "
        "received and their server time (median per statement). OPA's timers come from "
        "`?metrics=true` (median of 25 calls).",
    ]
    if any(r.name == FLASK_NAME for r in results):
        parts.append(
            "* FlaskApp variant: the same spec, handlers and services on Connexion's "
            "`FlaskApp` (WSGI bridge, thread pool of 10), built by the benchmark (handlers' "
            "Starlette responses converted to Flask responses), served the same way; "
            f"measured on the {REFERENCE} case only."
        )
    if hot is not None:
        parts.append(
            "* Hot operations (`tests/load/operations.py`): each measured like getRunContext "
            f"({args.warmup} warm-up requests, then concurrency 1 and 8), beside the bare "
            "`authz/decision` and the trivial policy (`tests/load/trivial.py`: "
            '`allow if input.user == "alex"` on a second OPA process, decision logs off, '
            "the same client: the physical floor of one OPA round trip from Python). Their "
            "OPA round trips and SQL statements are the app's counters over 6 requests "
            "served in-process after one warm-up request."
        )
    parts += [
        "",
        *(
            ["## Targets of issue 22", "", targets_table(issue22_targets(results, *hot)), ""]
            if hot is not None
            else []
        ),
        "## Targets of the lean read path",
        "",
        targets_table(targets(results, opa_by_c)),
        "",
        "## getRunContext and bare OPA",
        "",
        results_table(results, opa_by_c),
        "",
        *(
            ["## Hot operations", "", operations_table(*hot, opa_by_c), ""]
            if hot is not None
            else []
        ),
        "## Cost per request",
        "",
        costs_table(costs),
        "",
        f"Statements PostgreSQL received for one request of the {max(SIZES):,} case:",
        "",
        statements_table(costs[max(SIZES)]),
        "",
        "OPA's own time per call (the bare OPA inputs above):",
        "",
        opa_table(timers),
        "",
        "## Interpretation",
        "",
        interpretation(results, costs, opa_by_c, timers, profile),
        "",
    ]
    if profile is not None:
        http = next(
            (
                r.percentile(50)
                for r in results
                if r.name == "getRunContext" and r.size == REFERENCE and r.concurrency == 1
            ),
            None,
        )
        parts += ["## Profile", "", profile_section(profile, http), ""]
    return "\n".join(parts)


# ------------------------------------------------------------------------------- main


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.load.bench", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--requests-c1",
        type=int,
        default=300,
        help="requests per case at concurrency 1 (default 300)",
    )
    parser.add_argument(
        "--requests-c8",
        type=int,
        default=800,
        help="requests per case at concurrency 8 (default 800)",
    )
    parser.add_argument(
        "--case-seconds", type=float, default=20.0, help="time cap per case in seconds (default 20)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=50,
        help="warm-up requests per thread size and concurrency (default 50)",
    )
    parser.add_argument(
        "--profile-requests",
        type=int,
        default=200,
        help="requests profiled in the slowest case; 0 skips (default 200)",
    )
    parser.add_argument(
        "--interleaved-rounds",
        type=int,
        default=600,
        help="rounds of getRunContext interleaved with a bare decision; 0 skips (default 600)",
    )
    parser.add_argument(
        "--operation-rounds",
        type=int,
        default=200,
        help="rounds of each hot operation interleaved with both floors; 0 skips (default 200)",
    )
    parser.add_argument(
        "--no-flask", action="store_true", help="skip the Connexion FlaskApp comparison"
    )
    parser.add_argument(
        "--without-statistics",
        action="store_true",
        help="load without the loader's ANALYZE, autovacuum off for the loaded tables",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=OUTPUT,
        help="markdown file to write (default docs/benchmarks.md)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--profile-dump",
        type=Path,
        default=None,
        help="also save the raw cProfile stats there (for pstats/snakeviz)",
    )
    parser.add_argument("--serve-flask", action="store_true", help=argparse.SUPPRESS)
    overhead.add_arguments(parser)
    ratelimit.add_arguments(parser)
    provenance.add_arguments(parser)
    bounds.add_arguments(parser)
    return parser


def _terminate(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _measure_context(
    base_url: str, name: str, runs: dict[int, str], sizes: tuple[int, ...], args: argparse.Namespace
) -> list[Result]:
    results: list[Result] = []
    for size in sizes:
        call = context_call(base_url, runs[size])
        run_load("warm-up", size, call, args.warmup, 1, args.case_seconds)
        run_load("warm-up", size, call, args.warmup, 8, args.case_seconds)
    for concurrency in CONCURRENCIES:
        total = args.requests_c1 if concurrency == 1 else args.requests_c8
        for size in sizes:
            print(f"{name} size {size} c={concurrency} ...", file=sys.stderr)
            results.append(
                run_load(
                    name,
                    size,
                    context_call(base_url, runs[size]),
                    total,
                    concurrency,
                    args.case_seconds,
                )
            )
    return results


def _measure_operations(
    base_url: str,
    hot: list[operations.Operation],
    args: argparse.Namespace,
    floors: list[tuple[str, Callable[[requests.Session], None]]],
) -> tuple[list[Result], dict[str, list[Result]]]:
    """Each hot operation: warm-up, then concurrency 1 and 8 like the context cases, and
    ``--operation-rounds`` rounds interleaved with the two floors (bare decision,
    trivial policy), whose ratios do not move with the shared host's load."""
    results: list[Result] = []
    interleaved: dict[str, list[Result]] = {}
    for op in hot:
        call = operations.operation_call(base_url, op)
        run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
        for concurrency in CONCURRENCIES:
            total = args.requests_c1 if concurrency == 1 else args.requests_c8
            print(f"{op.name} c={concurrency} ...", file=sys.stderr)
            results.append(run_load(op.name, None, call, total, concurrency, args.case_seconds))
        if args.operation_rounds > 0:
            print(f"{op.name}, interleaved ...", file=sys.stderr)
            interleaved[op.name] = run_interleaved(
                [(op.name, call), *floors], None, args.operation_rounds, args.case_seconds
            )
    return results, interleaved


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the process exit code."""
    args = _parser().parse_args(argv)
    if args.serve_flask:
        return serve_flask()
    signal.signal(signal.SIGTERM, _terminate)
    started = dt.datetime.now(dt.UTC)
    clock = time.monotonic()
    facts = machine()
    load_at_start = load_average()
    configure_logging("WARNING")
    with contextlib.ExitStack() as stack:
        print("starting PostgreSQL and OPA ...", file=sys.stderr)
        cluster = PostgresCluster()
        stack.callback(cluster.stop)
        cluster.start()
        opa = OpaServer()
        stack.callback(lambda: Path(opa.log_path).unlink(missing_ok=True))
        stack.callback(opa.stop)
        opa.start()
        print("loading the world through the product's loader ...", file=sys.stderr)
        database_url, ids = prepare_database(cluster, statistics=not args.without_statistics)
        facts["statistics after the load"] = statistics_after_load(database_url)
        runs = {size: ids[f"r{size}"] for size in SIZES}
        settings: Settings = load_settings(environ={}).replace(
            **{
                "database.url": database_url,
                "opa.url": opa.url,
                **{f"rate_limit.{name}.per_minute": 0 for name in RATE_CLASSES},
            }
        )
        hot = operations.operations(ids, runs[REFERENCE])

        with app_process(database_url, opa.url) as base_url:
            # First, before anything else has read: the largest thread right after the
            # load, on connections whose statements are prepared (and planned) now.
            print(f"{RIGHT_AFTER_LOAD} ...", file=sys.stderr)
            after_load = context_call(base_url, runs[max(SIZES)])
            run_load("warm-up", max(SIZES), after_load, args.warmup, 1, args.case_seconds)
            results = [
                run_load(
                    RIGHT_AFTER_LOAD,
                    max(SIZES),
                    after_load,
                    args.requests_c1,
                    1,
                    args.case_seconds,
                )
            ]

            print("counting round trips in-process ...", file=sys.stderr)
            local_app = create_app(settings)
            stack.callback(local_app.services.close)
            costs = measure_costs(local_app, cluster, runs)
            with app_thread(local_app) as local_url:
                op_costs = operations.count_costs(local_app, local_url, hot)
            inputs = costs[REFERENCE].inputs
            timers = [
                opa_timers(opa.url, path, inputs[path]) for path in (DECISION_PATH, EVALUATE_PATH)
            ]

            results += _measure_context(base_url, "getRunContext", runs, SIZES, args)
            opa_by_c: dict[int, Result] = {}
            trivial_by_c: dict[int, Result] = {}
            trivial_url = stack.enter_context(trivial_opa())
            bare = (
                ("bare OPA authz/decision", opa.url, DECISION_PATH, inputs[DECISION_PATH]),
                ("bare OPA runcontext/evaluate", opa.url, EVALUATE_PATH, inputs[EVALUATE_PATH]),
                (TRIVIAL, trivial_url, TRIVIAL_PATH, TRIVIAL_INPUT),
            )
            for name, url, path, policy_input in bare:
                call = opa_call(url, path, policy_input)
                run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
                for concurrency in CONCURRENCIES:
                    total = args.requests_c1 if concurrency == 1 else args.requests_c8
                    print(f"{name} c={concurrency} ...", file=sys.stderr)
                    result = run_load(
                        name,
                        REFERENCE if path == EVALUATE_PATH else None,
                        call,
                        total,
                        concurrency,
                        args.case_seconds,
                    )
                    results.append(result)
                    if path == DECISION_PATH:
                        opa_by_c[concurrency] = result
                    elif path == TRIVIAL_PATH:
                        trivial_by_c[concurrency] = result
            floors = [
                (INTERLEAVED_BARE, opa_call(opa.url, DECISION_PATH, inputs[DECISION_PATH])),
                (INTERLEAVED_TRIVIAL, opa_call(trivial_url, TRIVIAL_PATH, TRIVIAL_INPUT)),
            ]
            op_results, op_interleaved = _measure_operations(base_url, hot, args, floors)
            if args.interleaved_rounds > 0:
                print(f"{INTERLEAVED_CONTEXT} ...", file=sys.stderr)
                results += run_interleaved(
                    [
                        (INTERLEAVED_CONTEXT, context_call(base_url, runs[REFERENCE])),
                        (INTERLEAVED_LARGEST, context_call(base_url, runs[max(SIZES)])),
                        *floors,
                    ],
                    REFERENCE,
                    args.interleaved_rounds,
                    args.case_seconds,
                )
                for result in results:
                    if result.name == INTERLEAVED_LARGEST:
                        result.size = max(SIZES)
                print(f"{FLOOR} ...", file=sys.stderr)
                results += run_floor(
                    settings,
                    runs[REFERENCE],
                    inputs[DECISION_PATH],
                    args.interleaved_rounds,
                    args.case_seconds,
                )
            with opa_without_decision_logs() as quiet_url:
                name = f"{bare[1][0]}, decision logs off"
                call = opa_call(quiet_url, EVALUATE_PATH, inputs[EVALUATE_PATH])
                run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
                for concurrency in CONCURRENCIES:
                    total = args.requests_c1 if concurrency == 1 else args.requests_c8
                    print(f"{name} c={concurrency} ...", file=sys.stderr)
                    results.append(
                        run_load(name, REFERENCE, call, total, concurrency, args.case_seconds)
                    )

        if not args.no_flask:
            command = ("tests.load.bench", "--serve-flask")
            with app_process(database_url, opa.url, command) as base_url:
                results += _measure_context(base_url, FLASK_NAME, runs, (REFERENCE,), args)

        profile = None
        if args.profile_requests > 0:
            print(f"profiling {REFERENCE} messages at c=1 in-process ...", file=sys.stderr)
            profile = profile_case(local_app, runs[REFERENCE], args.profile_requests)
            if args.profile_dump is not None:
                profile.stats.dump_stats(str(args.profile_dump))

        # -- observability overhead (issue 12): tests/load/overhead.py --------------
        overhead_result = None
        if args.overhead_rounds > 0:
            print(
                f"overhead of metrics and tracing, {args.overhead_rounds} rounds ...",
                file=sys.stderr,
            )
            overhead_result = overhead.measure_overhead(
                database_url,
                runs[REFERENCE],
                AGENT_TOKEN,
                rounds=args.overhead_rounds,
                warmup=args.overhead_warmup,
                blocks=args.overhead_blocks,
            )
        # -- the policy revision of a decision (issue 24): tests/load/provenance.py -----
        revision_result = None
        if args.provenance_rounds > 0:
            print(f"policy revision, {args.provenance_rounds} rounds ...", file=sys.stderr)
            revision_result = provenance.measure_provenance(
                inputs[DECISION_PATH],
                rounds=args.provenance_rounds,
                warmup=args.provenance_warmup,
            )
        # ------------------------------------------------------------------------------
        # Rate limiter, memory against Redis (issue 25): tests/load/ratelimit.py.
        rate_limit_section = ratelimit.from_bench(args, database_url, runs[REFERENCE], AGENT_TOKEN)
        bounds_result = bounds.run(cluster, opa.url, args)  # issue 19: tests/load/bounds.py

    seconds = time.monotonic() - clock
    facts["load average at start / end"] = f"{load_at_start} / {load_average()}"
    report = render(
        started,
        facts,
        args,
        results,
        costs,
        opa_by_c,
        timers,
        profile,
        seconds,
        hot=(op_results, op_costs, trivial_by_c, op_interleaved),
    )
    report += rate_limit_section
    if bounds_result is not None:
        report += "\n" + bounds.section(bounds_result)
    if revision_result is not None:
        report += "\n" + provenance.provenance_section(revision_result)
    if overhead_result is not None:
        report += "\n" + overhead.overhead_section(overhead_result)
    print(report)
    if not args.no_write:
        args.output.write_text(report + kept_tail(args.output), encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; services stopped", file=sys.stderr)
        sys.exit(130)
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
