"""Run the API under uvicorn: ``server.workers`` processes on ``host``:``port``.

One worker process serves requests on one event loop with one GIL; several workers
(default: one per core) let one replica use the machine. The app is stateless apart
from connection pools and per-process rate-limit buckets, so workers need no
coordination (see ``docs/architecture.md``, distribution). The HTTP server's own
limits and error answers come from :func:`app.http.protocol.server_options`.
"""

from __future__ import annotations

import logging
import os

import uvicorn

from app.config import Settings, load_settings
from app.http.protocol import server_options
from app.logs import configure_logging
from app.main import Application, create_app

__all__ = ["app_from_environment", "serve", "worker_count"]


def worker_count(settings: Settings) -> int:
    """``server.workers``, where 0 means one per core."""
    configured = settings.integer("server.workers")
    return configured if configured > 0 else (os.cpu_count() or 1)


def app_from_environment() -> Application:
    """The app of one worker process, configured from the environment.

    uvicorn starts each worker in a fresh process and calls this factory there; the
    settings come from the same environment (and ``CONFIG_FILE``) as the parent's.
    """
    settings = load_settings()
    configure_logging(settings.text("log.level"))
    return create_app(settings)


def serve(settings: Settings) -> None:
    """Serve until interrupted, on ``host``:``port`` with ``server.workers`` processes."""
    configure_logging(settings.text("log.level"))
    workers = worker_count(settings)
    logging.getLogger("app.server").info(
        "serving", extra={"port": settings.integer("port"), "workers": workers}
    )
    host, port = settings.text("host"), settings.integer("port")
    if workers == 1:
        uvicorn.run(
            create_app(settings),
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            lifespan="off",
            **server_options(settings),
        )
        return
    uvicorn.run(
        "app.server:app_from_environment",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        lifespan="off",
        **server_options(settings),
    )
