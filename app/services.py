"""The composition root: settings, database engine, OPA client, limiter and routes.

One :class:`Services` object per app instance. Handlers reach it through
:func:`current_services`, which a small ASGI middleware sets for every request (a
context variable rather than a module global, so several apps can live in one test
process).
"""

from __future__ import annotations

import contextvars
import threading
from dataclasses import dataclass, field

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext

from app.config import Settings
from app.http.ratelimit import RateLimiter
from app.http.routes import Route
from app.opa_client import OpaClient
from repositories import make_engine
from repositories.unit_of_work import UnitOfWork

__all__ = ["Services", "build_services", "current_services", "services_var"]

services_var: contextvars.ContextVar[Services] = contextvars.ContextVar("services")


@dataclass
class Services:
    """Everything a use case needs from the outside world."""

    settings: Settings
    engine: Engine
    read_engine: Engine
    opa: OpaClient
    limiter: RateLimiter
    routes: dict[str, Route]
    sql_statements: int = field(default=0)

    def uow(self) -> UnitOfWork:
        """A new unit of work (one transaction, rolled back unless committed)."""
        return UnitOfWork(self.engine)

    def reader(self) -> UnitOfWork:
        """A read-only unit: autocommit statements, no transaction, no locks."""
        return UnitOfWork(self.read_engine, read_only=True)

    def close(self) -> None:
        """Release pooled connections."""
        self.opa.close()
        self.engine.dispose()
        self.read_engine.dispose()


def build_services(settings: Settings, routes: dict[str, Route]) -> Services:
    """Create the engine and the OPA client from ``settings``."""

    def engine_for(**isolation: str) -> Engine:
        return make_engine(
            settings.text("database.url"),
            pool_size=settings.integer("database.pool_size"),
            max_overflow=settings.integer("database.pool_size"),
            # No ping per checkout: it costs a round trip on every request, and a stale
            # connection already fails closed (503) and is replaced by the pool.
            pool_pre_ping=False,
            pool_recycle=1800,
            connect_args={
                "options": "-c statement_timeout="
                f"{settings.integer('database.statement_timeout_ms')}",
                "connect_timeout": 5,
            },
            **isolation,
        )

    engine = engine_for()
    # Its own pool of autocommit connections: switching a pooled connection in and out
    # of autocommit would cost a SET round trip per request.
    read_engine = engine_for(isolation_level="AUTOCOMMIT")
    opa = OpaClient(
        settings.text("opa.url"),
        timeout=settings.number("opa.timeout_seconds"),
        pool_size=settings.integer("opa.pool_size"),
    )
    services = Services(
        settings=settings,
        engine=engine,
        read_engine=read_engine,
        opa=opa,
        limiter=RateLimiter(settings),
        routes=routes,
    )

    lock = threading.Lock()

    def _count(*_args: object) -> None:
        # Read by the cost tests and the benchmark: statements per request. Handlers run
        # in worker threads, so the increment is locked.
        with lock:
            services.sql_statements += 1

    def _on_disconnect(context: ExceptionContext) -> None:
        # A lost connection means the server went away: every pooled connection of both
        # pools is dead. Start both pools afresh (connections in use finish on their
        # own), so the first request after recovery does not fail on a stale one.
        if context.is_disconnect:
            for pooled in (engine, read_engine):
                pooled.dispose(close=False)

    for counted in (engine, read_engine):
        event.listen(counted, "before_cursor_execute", _count)
        event.listen(counted, "handle_error", _on_disconnect)

    return services


def current_services() -> Services:
    """The services of the app serving the current request."""
    return services_var.get()
