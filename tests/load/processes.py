"""The servers of a run: the app in its own process or in a thread, a quiet second OPA."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from app.main import Application
from tests.load.measure import BenchError
from tests.load.trivial import opa_process
from tests.support.services import REPO_ROOT, AppProcess, ServiceError, free_port

# Every rate-limit class is off: the benchmark measures the work, not the limiter.
RATE_CLASSES = ("agent_runtime", "chat", "admin", "authz", "session_context", "runner")


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
