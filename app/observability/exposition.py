"""The metrics listener: ``GET /metrics`` in the Prometheus text format, off the API port.

``python -m app serve`` starts it on ``metrics.host``:``metrics.port`` (off at port 0)
with ``prometheus_client``'s own server, unauthenticated and kept off the public
interface (decision O1). With several workers it sums their multiprocess files and
drops a dead worker's gauges (:func:`prepare_multiprocess_directory`,
:func:`exposition_registry`; decision O2).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

__all__ = [
    "MULTIPROCESS_ENV",
    "ListenerError",
    "MetricsListener",
    "exposition_registry",
    "prepare_multiprocess_directory",
    "remove_directory",
    "start_listener",
    "sweep_dead_workers",
]

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LIVE_GAUGE_FILE = re.compile(r"^gauge_live[a-z]+_(\d+)\.db$")


class ListenerError(OSError):
    """The metrics listener cannot bind its address (e.g. the port is in use)."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_dead_workers(directory: str, is_alive: Callable[[int], bool] = _alive) -> list[int]:
    """Drop the live-gauge files of worker processes that no longer run.

    Returns the process ids whose files were dropped. Counters and histograms of a dead
    worker stay: what it counted happened.
    """
    dead: set[int] = set()
    for path in glob.glob(os.path.join(directory, "gauge_live*.db")):
        match = _LIVE_GAUGE_FILE.match(os.path.basename(path))
        if match is not None and not is_alive(int(match.group(1))):
            dead.add(int(match.group(1)))
    for pid in sorted(dead):
        mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]  # untyped upstream
    return sorted(dead)


class _LiveWorkersCollector(Collector):
    """The multiprocess collector, after a sweep of dead workers' gauges."""

    def __init__(self, directory: str) -> None:
        self._directory = directory
        # prometheus_client's multiprocess module is untyped.
        self._inner = MultiProcessCollector(None, path=directory)  # type: ignore[no-untyped-call]

    def collect(self) -> Iterable[Metric]:
        sweep_dead_workers(self._directory)
        metrics: Iterable[Metric] = self._inner.collect()  # type: ignore[no-untyped-call]
        return metrics


def exposition_registry(
    registry: CollectorRegistry, environ: Mapping[str, str] | None = None
) -> CollectorRegistry:
    """What the listener serves: the workers' files in multiprocess mode, else ``registry``."""
    env = os.environ if environ is None else environ
    directory = env.get(MULTIPROCESS_ENV)
    if not directory:
        return registry
    combined = CollectorRegistry()
    combined.register(_LiveWorkersCollector(directory))
    return combined


def prepare_multiprocess_directory() -> tuple[str, bool]:
    """Set ``PROMETHEUS_MULTIPROC_DIR`` for the workers about to start; returns it.

    An operator's directory (the variable already set) is kept but emptied of earlier
    runs' files, as ``prometheus_client`` requires; otherwise a fresh temporary one is
    made. The flag says whether the caller made it (and should remove it at exit).
    """
    existing = os.environ.get(MULTIPROCESS_ENV)
    if existing:
        Path(existing).mkdir(parents=True, exist_ok=True)
        for stale in glob.glob(os.path.join(existing, "*.db")):
            os.remove(stale)
        return existing, False
    directory = tempfile.mkdtemp(prefix="agent-authz-metrics-")
    os.environ[MULTIPROCESS_ENV] = directory
    return directory, True


@dataclass
class MetricsListener:
    """A running metrics listener."""

    server: WSGIServer
    thread: threading.Thread
    host: str
    port: int

    @property
    def url(self) -> str:
        """The URL a scraper reads (``http://host:port/metrics``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        with contextlib.suppress(OSError):
            self.server.shutdown()
            self.server.server_close()
        self.thread.join(timeout=5)


def start_listener(registry: CollectorRegistry, host: str, port: int) -> MetricsListener:
    """Serve ``registry`` on ``host``:``port`` from a daemon thread.

    Raises:
        ListenerError: the address cannot be bound (e.g. the port is in use).
    """
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise ListenerError(
            f"metrics listener cannot bind {host}:{port}: {exc.strerror or exc}"
        ) from exc
    return MetricsListener(server, thread, host, server.server_port)


def remove_directory(directory: str) -> None:
    """Remove a multiprocess directory this process made (at exit)."""
    shutil.rmtree(directory, ignore_errors=True)
