"""``python -m app serve`` as an operator runs it: metrics listener and OTLP export.

With two uvicorn workers, each worker counts into the shared
``PROMETHEUS_MULTIPROC_DIR`` and the listener (in the supervising process) sums them:
the scrape counts every request exactly, whichever worker served it, and a worker
that dies leaves its counts but not its gauges. With tracing switched on by the
standard ``OTEL_*`` variables, the workers export their spans over OTLP/HTTP to a
collector, where OPA's spans (deploy configuration) join the same traces.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prometheus_client.mmap_dict import MmapedDict

from tests.integration.observability.conftest import Sample, sample, scrape
from tests.integration.observability.test_metrics import _world
from tests.support.otlp import OtlpReceiver, ReceivedSpan
from tests.support.services import REPO_ROOT, AppProcess, OpaServer, free_port
from tests.support.world import load

pytestmark = pytest.mark.integration

CONTEXT_200 = sample(
    "agent_authz_http_request_duration_seconds_count", operation="getRunContext", status="200"
)
REQUESTS = 40
FILTER_MISMATCHES = sample("agent_authz_filter_mismatches_total", action="message.read")


def _assert_json_lines(log: Path) -> None:
    """Every line the served process wrote is a JSON log line (Python warnings too)."""
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines
    for line in lines:
        assert isinstance(json.loads(line), dict), line


@contextlib.contextmanager
def _serve(env: dict[str, str], log: Path) -> Iterator[str]:
    """``python -m app serve`` with ``env``; yields its base URL once /readyz answers."""
    full = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PROMETHEUS_"))},
        "LOG_LEVEL": "WARNING",
        **env,
    }
    app = AppProcess.start(("app", "serve"), full, log, name="serve")
    try:
        app.wait_ready()
        yield app.base_url
    finally:
        app.stop(timeout=15)


def _read_contexts(base_url: str, run_id: str, count: int, threads: int) -> None:
    """``count`` context reads from ``threads`` threads, each on fresh connections."""
    failures: list[int] = []

    def reader(share: int) -> None:
        for _ in range(share):
            # A new connection per request, so that both workers accept some.
            response = requests.get(
                f"{base_url}/api/v1/runs/{run_id}/context",
                headers={"Authorization": "Bearer tok-lotse", "Connection": "close"},
                timeout=30,
            )
            if response.status_code != 200:
                failures.append(response.status_code)

    workers = [threading.Thread(target=reader, args=(count // threads,)) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []


def _read_until_both_workers_served(base_url: str, run_id: str, directory: Path) -> int:
    """Rounds of ``REQUESTS`` context reads until both workers served some; the count sent.

    ``/readyz`` answering proves only that one worker is up: on a busy machine the
    second may still be starting, and the first then accepts every connection.
    """
    sent = 0
    deadline = time.monotonic() + 30
    while True:
        _read_contexts(base_url, run_id, REQUESTS, threads=8)
        sent += REQUESTS
        both = len([c for c in _served_by_pid(directory).values() if c > 0]) == 2
        if both or time.monotonic() > deadline:
            return sent


def _served_by_pid(directory: Path) -> dict[int, float]:
    """Context reads (answered 200) each worker process counted, from its own file."""
    served: dict[int, float] = {}
    for path in directory.glob("histogram_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        served[pid] = sum(
            value
            for key, value, _timestamp, _pos in _values(path)
            if '"getRunContext"' in key and '"200"' in key and "_bucket" in key
        )
    return served


def _values(path: Path) -> list[tuple[str, float, float, int]]:
    """The entries of one worker's file (prometheus_client's reader is untyped)."""
    entries: list[tuple[str, float, float, int]] = list(
        MmapedDict.read_all_values_from_file(str(path))  # type: ignore[no-untyped-call]
    )
    return entries


def _delta(after: dict[Sample, float], before: dict[Sample, float], key: Sample) -> float:
    return after.get(key, 0) - before.get(key, 0)


def _scrape_counted(url: str, before: dict[Sample, float], sent: int) -> dict[Sample, float]:
    """A scrape once every sent read is counted (or the last one after 10 s).

    A request is counted when its handler has finished, which is after the client has
    its answer: on a busy machine the last read's count can land just after the
    client returns.
    """
    deadline = time.monotonic() + 10
    while True:
        after = scrape(url)
        if _delta(after, before, CONTEXT_200) >= sent or time.monotonic() > deadline:
            return after
        time.sleep(0.05)


@pytest.fixture
def loaded(database_url: str) -> dict[str, str]:
    """The world of test_metrics, loaded."""
    return load(database_url, _world())


def test_two_workers_are_counted_together_and_export_traces(
    loaded: dict[str, str],
    database_url: str,
    traced_opa: OpaServer,
    collector: OtlpReceiver,
    tmp_path: Path,
) -> None:
    metrics_port = free_port()
    directory = tmp_path / "metrics"
    env = {
        "DATABASE_URL": database_url,
        "OPA_URL": traced_opa.url,
        "SERVER_WORKERS": "2",
        "METRICS_PORT": str(metrics_port),
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with _serve(env, tmp_path / "serve.log") as base_url:
        before = scrape(url)
        # Issue 19: a closed label set's series exists at 0 before anything happened, in
        # multiprocess mode too (HELP and TYPE included), so increase() sees the first.
        assert before[FILTER_MISMATCHES] == 0
        sent = _read_until_both_workers_served(base_url, loaded["r1"], directory)
        after = _scrape_counted(url, before, sent)

        assert _delta(after, before, CONTEXT_200) == sent
        served = _served_by_pid(directory)
        assert len([pid for pid, count in served.items() if count > 0]) == 2, served
        assert sum(served.values()) == sent
        for pool in ("write", "read"):
            assert after[sample("agent_authz_db_pool_connections_in_use", pool=pool)] == 0

        # A worker that dies keeps its counts; its live gauges go at the next scrape.
        victim = max(served)
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{victim}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(directory.glob(f"gauge_livesum_{victim}.db"))
        later = scrape(url)
        assert _delta(later, before, CONTEXT_200) == sent
        assert not list(directory.glob(f"gauge_livesum_{victim}.db"))

    _assert_json_lines(tmp_path / "serve.log")

    # Spans of the workers, over OTLP/HTTP: the app's request spans, with OPA's
    # spans in the same traces.
    def joined(spans: list[ReceivedSpan]) -> bool:
        received = collector.received()
        app_traces = {
            r.trace_id
            for r in received
            if r.service == "agent-authz" and r.name == "GET /api/v1/runs/{run_id}/context"
        }
        return len({r.trace_id for r in received if r.service == "opa"} & app_traces) >= 5

    collector.wait_for(joined)
    app_spans = [r for r in collector.received() if r.service == "agent-authz"]
    kinds = {(r.kind, r.name.split()[0]) for r in app_spans}
    assert {("SERVER", "GET"), ("INTERNAL", "opa"), ("CLIENT", "POST")} <= kinds
    assert any(r.kind == "CLIENT" and "db.statement" in r.attributes for r in app_spans)


def test_one_worker_serves_its_own_registry(
    loaded: dict[str, str], database_url: str, opa_server: OpaServer, tmp_path: Path
) -> None:
    metrics_port = free_port()
    env = {
        "DATABASE_URL": database_url,
        "OPA_URL": opa_server.url,
        "SERVER_WORKERS": "1",
        "METRICS_PORT": str(metrics_port),
    }
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with _serve(env, tmp_path / "serve.log") as base_url:
        before = scrape(url)
        _read_contexts(base_url, loaded["r1"], 4, threads=2)
        after = scrape(url)

    assert _delta(after, before, CONTEXT_200) == 4
    assert before[FILTER_MISMATCHES] == 0
    _assert_json_lines(tmp_path / "serve.log")


def test_an_unsupported_otel_exporter_refuses_to_start() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "SERVER_WORKERS": "2",
        "OTEL_TRACES_EXPORTER": "zipkin",
        "PORT": str(free_port()),
    }
    result = subprocess.run(
        [sys.executable, "-m", "app", "serve"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 2
    assert "OTEL_TRACES_EXPORTER" in result.stderr
