"""The servers of the overhead part (``tests/load/overhead.py``): one app process per
variant, each as ``python -m tests.load.overhead --serve MODE`` runs it, and a sink for
OPA's trace exports."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from app.config import load_settings
from app.logs import configure_logging
from app.observability.tracing import Tracing
from app.server import serve_app
from tests.support.services import AppProcess, ServiceError, free_port

__all__ = ["MODES", "OverheadError", "Server", "Sink", "serve", "start_servers"]

MODES = ("off", "off-2", "metrics", "tracing", "both")
_CONTEXT_SPAN = "GET /api/v1/runs/{run_id}/context"


class OverheadError(RuntimeError):
    """The overhead measurement could not run as designed."""


class Sink:
    """An OTLP/HTTP endpoint that accepts and discards (OPA's trace exports)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        """``host:port`` for ``OPA_TRACING_ADDRESS``."""
        return f"127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


def serve(mode: str, spans_file: Path | None) -> int:
    """``--serve MODE``: the app as ``python -m app serve`` runs it with one worker
    (:func:`app.server.serve_app`), with the tracing of ``mode`` (an in-memory exporter)
    instead of the ``OTEL_*`` variables. When stopped with SIGINT, the number of
    exported spans is written to ``spans_file``.
    """
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    settings = load_settings()
    configure_logging(settings.text("log.level"))
    exporter = InMemorySpanExporter()
    tracing = Tracing.exporting_to(exporter) if mode in ("tracing", "both") else None
    try:
        serve_app(settings, tracing)
    finally:
        # serve_app shut tracing down, which flushed the last spans into the exporter;
        # the exporter keeps them after its shutdown.
        if tracing is not None and spans_file is not None:
            spans = exporter.get_finished_spans()
            spans_file.write_text(
                json.dumps(
                    {
                        "spans": len(spans),
                        "context_requests": sum(1 for s in spans if s.name == _CONTEXT_SPAN),
                    }
                )
            )
    return 0


@dataclass
class Server:
    """One running variant: its process, its metrics URL and where it writes its span count."""

    mode: str
    app: AppProcess
    metrics_url: str | None
    spans_file: Path


@contextlib.contextmanager
def start_servers(database_url: str, opa_url: str, workdir: Path) -> Iterator[list[Server]]:
    """One server per mode of :data:`MODES`, started at once and ready; stopped on exit.

    Raises:
        OverheadError: a server did not start.
    """
    with contextlib.ExitStack() as stack:
        servers: list[Server] = []
        for mode in MODES:
            env = {
                k: v
                for k, v in os.environ.items()
                if k != "CONFIG_FILE" and not k.startswith(("OTEL_", "PROMETHEUS_"))
            }
            env.update(
                {
                    "DATABASE_URL": database_url,
                    "OPA_URL": opa_url,
                    "LOG_LEVEL": "WARNING",
                    "RATE_LIMIT_AGENT_RUNTIME_PER_MINUTE": "0",
                    "PYTHONUNBUFFERED": "1",
                    "PYTHONHASHSEED": "0",
                }
            )
            metrics_url = None
            if mode in ("metrics", "both"):
                metrics_port = free_port()
                directory = tempfile.mkdtemp(prefix=f"bench-metrics-{mode}-", dir=workdir)
                env.update(
                    {"METRICS_PORT": str(metrics_port), "PROMETHEUS_MULTIPROC_DIR": directory}
                )
                metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
            spans_file = workdir / f"spans-{mode}.json"
            command = ("tests.load.overhead", "--serve", mode, "--spans-file", str(spans_file))
            app = AppProcess.start(command, env, workdir / f"server-{mode}.log", name=mode)
            # SIGINT: uvicorn stops gracefully, then re-raises it as KeyboardInterrupt,
            # so the server's finally block still writes its span count.
            stack.callback(app.stop, signal.SIGINT, 30)
            servers.append(Server(mode, app, metrics_url, spans_file))
        for server in servers:
            try:
                server.app.wait_ready()
            except ServiceError as exc:
                raise OverheadError(str(exc)) from exc
        yield servers
