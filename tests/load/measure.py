"""Sequential and interleaved measurement: latencies of a case from one or more
keep-alive sessions, and the calls a case makes (getRunContext, a bare OPA evaluation)."""

from __future__ import annotations

import functools
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from tests.load.interleave import interleaved_rounds
from tests.load.world import AGENT_TOKEN

CONCURRENCIES = (1, 8)
DECISION_PATH = "authz/decision"
EVALUATE_PATH = "runcontext/evaluate"
REQUEST_TIMEOUT = 10.0


class BenchError(RuntimeError):
    """The benchmark could not run as designed (a request failed, a check differed)."""


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


def keepalive_session() -> requests.Session:
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
        session = keepalive_session()
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
    sessions = [keepalive_session() for _ in cases]
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


# What the hot operations measured: their results, (OPA calls, statements) per operation,
# the trivial policy by concurrency, the interleaved rounds per operation.
HotOperations = tuple[
    list[Result], dict[str, tuple[float, float]], dict[int, Result], dict[str, list[Result]]
]
