"""Rate limits that hold across workers and replicas: served processes on one Redis.

``python -m app serve`` runs as an operator runs it (two uvicorn workers, metrics in
multiprocess mode so that each worker's share of the requests can be read from its own
file), with ``rate_limit.storage`` on a real redis-server. One principal sends many
more requests than its class admits, each on a new connection, until both workers (or
both replicas) have answered some: together they admit exactly
``rate_limit.chat.per_minute``. The moving window has no tolerance of its own; the
only one is the clocks of the hosts (the requests' timestamps come from the app
processes), which on one machine is none. A small figure keeps the test fast: every
request lies within one minute.

``make run``'s own path (``scripts/run.sh``: the local redis-server it starts, then
``python -m app serve``) is run too, against this test's database and OPA, with its
state in a temporary ``DATA_DIR``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from prometheus_client.mmap_dict import MmapedDict

from tests.integration.foundation.conftest import messages_path
from tests.support.services import REPO_ROOT, AppProcess, OpaServer, free_port

pytestmark = pytest.mark.integration

PER_MINUTE = 20
FAILED_AUTH = 10
# Every request of a phase must fall within one window.
WINDOW_BUDGET_SECONDS = 45
LISTING = "listChannelMessages"


@dataclass(frozen=True)
class Answer:
    """One request's outcome: which base URL served it, status, Retry-After."""

    target: int
    status: int
    retry_after: str | None


def _env(database_url: str, opa_url: str, metrics: Path, **extra: str) -> dict[str, str]:
    inherited = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OTEL_", "PROMETHEUS_", "RATE_LIMIT_", "REDIS_"))
    }
    return {
        **inherited,
        "DATABASE_URL": database_url,
        "OPA_URL": opa_url,
        "LOG_LEVEL": "WARNING",
        "SERVER_WORKERS": "2",
        "RATE_LIMIT_CHAT_PER_MINUTE": str(PER_MINUTE),
        "RATE_LIMIT_FAILED_AUTH_PER_MINUTE": str(FAILED_AUTH),
        # A busy test machine must not turn a slow answer into a fail-open admission;
        # each test asserts that no storage call failed.
        "RATE_LIMIT_STORAGE_TIMEOUT_SECONDS": "5",
        "METRICS_PORT": str(free_port()),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        **extra,
    }


@dataclass(frozen=True)
class Replica:
    """A served app: its base URL, metrics listener and multiprocess directory."""

    base_url: str
    metrics_url: str
    directory: Path

    def storage_failures(self) -> float:
        """``agent_authz_rate_limit_storage_failures_total`` over every kind."""
        text = requests.get(self.metrics_url, timeout=10).text
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("agent_authz_rate_limit_storage_failures_total{")
        )


def _replica_of(base_url: str, env: dict[str, str]) -> Replica:
    return Replica(
        base_url,
        f"http://127.0.0.1:{env['METRICS_PORT']}/metrics",
        Path(env["PROMETHEUS_MULTIPROC_DIR"]),
    )


@contextlib.contextmanager
def _replica(env: dict[str, str], log: Path) -> Iterator[Replica]:
    app = AppProcess.start(("app", "serve"), env, log, name="serve")
    try:
        app.wait_ready()
        replica = _replica_of(app.base_url, env)
        _both_workers_up(replica)
        yield replica
    finally:
        app.stop(timeout=15)


def _send(urls: list[str], path: str, token: str, count: int, threads: int) -> list[Answer]:
    """``count`` GETs spread over ``urls`` in turn, each on a new connection."""
    answers: list[Answer] = []
    lock = threading.Lock()
    numbers = iter(range(count))

    def worker() -> None:
        while True:
            with lock:
                number = next(numbers, None)
            if number is None:
                return
            target = number % len(urls)
            response = requests.get(
                f"{urls[target]}{path}",
                headers={"Authorization": f"Bearer {token}", "Connection": "close"},
                timeout=30,
            )
            with lock:
                answers.append(
                    Answer(target, response.status_code, response.headers.get("Retry-After"))
                )

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return answers


def _answered_by_pid(directory: Path, operation: str) -> dict[int, float]:
    """Requests of ``operation`` (any status) each worker counted, from its own file."""
    answered: dict[int, float] = {}
    for path in directory.glob("histogram_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        entries = MmapedDict.read_all_values_from_file(str(path))  # type: ignore[no-untyped-call]
        answered[pid] = sum(
            value
            for key, value, _timestamp, _position in entries
            if f'"{operation}"' in key and "_bucket" in key
        )
    return answered


def _both_workers_up(replica: Replica) -> None:
    """Probe until both workers have answered something (``/readyz`` proves one)."""
    deadline = time.monotonic() + 30
    while len(list(replica.directory.glob("histogram_*.db"))) < 2:
        assert time.monotonic() < deadline, "the second worker never answered"
        _send([replica.base_url], "/healthz", "none", 8, threads=4)


def _flood(replicas: list[Replica], path: str, token: str) -> list[Answer]:
    """One principal's message listings in rounds until every worker answered some.

    The requests go to the replicas in turn, each on a new connection, from four
    threads, so that both workers of each replica accept some.
    """
    answers: list[Answer] = []
    started = time.monotonic()
    before = [_answered_by_pid(replica.directory, LISTING) for replica in replicas]
    while True:
        answers += _send([r.base_url for r in replicas], path, token, PER_MINUTE, threads=4)
        per_worker = [
            count - earlier.get(pid, 0)
            for replica, earlier in zip(replicas, before, strict=True)
            for pid, count in _answered_by_pid(replica.directory, LISTING).items()
        ]
        every_worker = len(per_worker) == 2 * len(replicas) and all(per_worker)
        if len(answers) >= 3 * PER_MINUTE and every_worker:
            return answers
        assert time.monotonic() - started < WINDOW_BUDGET_SECONDS, per_worker


def _assert_exactly_the_figure(answers: list[Answer]) -> None:
    statuses = Counter(answer.status for answer in answers)
    assert statuses == {200: PER_MINUTE, 429: len(answers) - PER_MINUTE}, statuses
    for answer in answers:
        if answer.status == 429:
            assert answer.retry_after is not None
            assert 1 <= int(answer.retry_after) <= 60


def test_two_workers_then_two_replicas_on_one_redis_admit_exactly_the_figure(
    ids: dict[str, str],
    database_url: str,
    opa_server: OpaServer,
    redis_url: str,
    tmp_path: Path,
) -> None:
    general = messages_path(ids["support/general"])

    def replica(name: str) -> contextlib.AbstractContextManager[Replica]:
        env = _env(database_url, opa_server.url, tmp_path / name, RATE_LIMIT_STORAGE=redis_url)
        return _replica(env, tmp_path / f"{name}.log")

    with contextlib.ExitStack() as stack:
        first = stack.enter_context(replica("a"))

        # Two workers of one replica, Sam.
        _assert_exactly_the_figure(_flood([first], general, "tok-sam"))

        # A second replica of two workers beside it, Alex: four processes, one figure.
        second = stack.enter_context(replica("b"))
        answers = _flood([first, second], general, "tok-alex")
        _assert_exactly_the_figure(answers)
        assert Counter(answer.target for answer in answers)[1] == len(answers) // 2

        # The bogus-token loop, one request after the other over both replicas: once
        # the shared window is full, each process lets at most one more through (the
        # window is read only for addresses that process saw fail).
        loop = _send([first.base_url, second.base_url], general, "guess", 3 * FAILED_AUTH, 1)
        bogus = [answer.status for answer in loop]  # one thread: in the order sent
        assert set(bogus) == {401, 429}, bogus
        assert bogus[:FAILED_AUTH] == [401] * FAILED_AUTH, bogus
        assert bogus.count(401) <= FAILED_AUTH + 4, bogus
        assert bogus[-FAILED_AUTH:] == [429] * FAILED_AUTH, bogus

        assert first.storage_failures() == second.storage_failures() == 0


def test_make_runs_local_redis_holds_the_figure_across_the_workers(
    database_url: str, opa_server: OpaServer, tmp_path: Path
) -> None:
    metrics, data = tmp_path / "metrics", tmp_path / "data"
    port, redis_port = free_port(), free_port()
    env = _env(
        database_url,
        opa_server.url,
        metrics,
        PORT=str(port),
        REDIS_PORT=str(redis_port),
        DATA_DIR=str(data),
    )
    log = tmp_path / "run.log"
    with log.open("ab") as sink:
        run = subprocess.Popen(
            ["bash", str(REPO_ROOT / "scripts" / "run.sh")],
            cwd=REPO_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        app = AppProcess(run, base_url, log, "make run")
        app.wait_ready(timeout=120)
        ids = json.loads((data / "world.json").read_text(encoding="utf-8"))
        replica = _replica_of(base_url, env)
        _both_workers_up(replica)
        _assert_exactly_the_figure(
            _flood([replica], messages_path(ids["support/general"]), "tok-sam")
        )
        assert replica.storage_failures() == 0
        assert "Redis: starting on" in log.read_text()
        assert _redis_answers(redis_port)
    finally:
        # Ctrl-C in a terminal signals the whole process group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGINT)
        try:
            status = run.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
            raise

    assert status == 130
    assert not _redis_answers(redis_port)


def _redis_answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")
    return False
