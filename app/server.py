"""Run the API under uvicorn: ``server.workers`` processes on ``host``:``port``.

One worker process serves requests on one event loop with one GIL; several workers
(default: one per core) let one replica use the machine. The app is stateless apart
from connection pools (and rate-limit windows with ``rate_limit.storage``
``memory://``; a Redis storage shares them), so workers need no coordination (see
``docs/architecture.md``, distribution). The HTTP server's own
limits and error answers come from :func:`app.http.protocol.server_options`.

Observability (``docs/operations.md``): with ``metrics.port`` set, this command starts
the metrics listener on ``metrics.host``:``metrics.port`` beside the API; with several
workers it first gives them a shared ``PROMETHEUS_MULTIPROC_DIR`` (the listener, in
this supervising process, sums their files). Tracing follows the standard ``OTEL_*``
variables in every worker process.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

import uvicorn
from prometheus_client import CollectorRegistry

from app.config import Settings, load_settings
from app.http.protocol import server_options
from app.logs import configure_logging
from app.observability.exposition import (
    MULTIPROCESS_ENV,
    MetricsListener,
    exposition_registry,
    prepare_multiprocess_directory,
    remove_directory,
    start_listener,
)
from app.observability.tracing import Tracing, tracing_exporters, tracing_from_environment

if TYPE_CHECKING:
    # Imported where it is used: each worker process imports this module by name, and
    # Connexion (which app.main imports) warns at import; the worker's JSON logging
    # must be in place first.
    from app.main import Application

__all__ = ["app_from_environment", "serve", "serve_app", "worker_count"]

log = logging.getLogger("app.server")


def worker_count(settings: Settings) -> int:
    """``server.workers``, where 0 means one per core."""
    configured = settings.integer("server.workers")
    return configured if configured > 0 else (os.cpu_count() or 1)


def app_from_environment() -> Application:
    """The app of one worker process, configured from the environment.

    uvicorn starts each worker in a fresh process and calls this factory there; the
    settings come from the same environment (and ``CONFIG_FILE``) as the parent's, and
    so do tracing (``OTEL_*``) and the metrics directory (``PROMETHEUS_MULTIPROC_DIR``).
    """
    settings = load_settings()
    configure_logging(settings.text("log.level"))
    from app.main import create_app

    return create_app(settings, tracing=tracing_from_environment())


def _listen(settings: Settings, registry: CollectorRegistry) -> MetricsListener:
    listener = start_listener(
        exposition_registry(registry),
        settings.text("metrics.host"),
        settings.integer("metrics.port"),
    )
    log.info("metrics", extra={"port": listener.port})
    return listener


def serve(settings: Settings) -> None:
    """Serve until interrupted, on ``host``:``port`` with ``server.workers`` processes.

    Raises:
        ListenerError: the metrics port cannot be bound.
        TracingConfigError: the ``OTEL_*`` variables ask for an unsupported exporter.
    """
    configure_logging(settings.text("log.level"))
    workers = worker_count(settings)
    log.info("serving", extra={"port": settings.integer("port"), "workers": workers})
    metrics_on = settings.integer("metrics.port") > 0
    # Several workers count into files of a shared directory; so does one worker when
    # the operator set PROMETHEUS_MULTIPROC_DIR (the files of an earlier run go first).
    multiprocess = metrics_on and (workers > 1 or bool(os.environ.get(MULTIPROCESS_ENV)))
    if workers > 1:
        # Each worker sets its tracing up itself; a wrong OTEL_* variable is refused
        # here, before any worker starts (and would fail on every restart).
        tracing_exporters()
    directory, made = prepare_multiprocess_directory() if multiprocess else ("", False)
    listener: MetricsListener | None = None
    tracing = tracing_from_environment() if workers == 1 else None
    try:
        if workers == 1:
            serve_app(settings, tracing)
        else:
            if metrics_on:
                # This process counts nothing itself: the registry only stands in for
                # the workers' files, which exposition_registry reads.
                listener = _listen(settings, CollectorRegistry())
            _run(settings, "app.server:app_from_environment", factory=True, workers=workers)
    finally:
        if listener is not None:
            listener.stop()
        if made:
            remove_directory(directory)


def serve_app(settings: Settings, tracing: Tracing | None) -> None:
    """Serve one app in this process until interrupted (``server.workers`` 1), with its
    metrics listener when ``metrics.port`` is set; stops the listener and shuts
    ``tracing`` down when uvicorn returns or raises.

    ``tests/load/overhead_servers.py`` serves its variants through this, each with a
    tracing of its own instead of the ``OTEL_*`` variables.

    Raises:
        ListenerError: the metrics port cannot be bound.
    """
    from app.main import create_app

    listener: MetricsListener | None = None
    try:
        app = create_app(settings, tracing=tracing)
        if app.services.metrics is not None:
            listener = _listen(settings, app.services.metrics.registry)
        _run(settings, app)
    finally:
        if listener is not None:
            listener.stop()
        if tracing is not None:
            tracing.shutdown()


def _run(settings: Settings, target: Application | str, **options: Any) -> None:
    uvicorn.run(
        target,
        host=settings.text("host"),
        port=settings.integer("port"),
        log_config=None,
        access_log=False,
        # On: at the stop the app exports its last spans (Application._lifespan).
        lifespan="on",
        **options,
        **server_options(settings),
    )
