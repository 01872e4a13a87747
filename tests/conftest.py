"""Shared fixtures: a throwaway PostgreSQL cluster, the real OPA, the app over HTTP.

Integration tests never skip: when PostgreSQL or OPA cannot be started the fixtures
raise and the tests error. ``TEST_CONTAINERS=1`` with a Docker engine makes the
PostgreSQL fixture use testcontainers instead of a local cluster. Property tests
(hypothesis) run without a per-example deadline (the ``suite`` profile below).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import uvicorn
from hypothesis import settings
from sqlalchemy import text

from app.config import Settings, load_settings
from app.http.protocol import server_options
from app.logs import configure_logging
from app.main import Application, create_app
from app.observability.tracing import Tracing
from repositories import make_engine
from repositories.migrate import upgrade
from tests.support.client import ApiClient
from tests.support.corpus import recording_overrides
from tests.support.services import OpaServer, PostgresCluster, RedisServer, free_port, run_sql

TEMPLATE_DB = "agent_authz_template"

# Property tests assert behaviour, not speed: hypothesis's per-example deadline (200 ms)
# is a timing assertion, and on a loaded machine it failed examples that were right.
# Modules' own @settings keep this default for what they do not set.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@dataclass
class Postgres:
    """Where the test cluster listens and how to reach a database on it."""

    admin_url: str
    url_for: Callable[[str], str]


def _containers_postgres() -> Iterator[Postgres]:
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer(
        "postgres:15", username="postgres", password="postgres", dbname="postgres"
    ) as container:
        host, port = container.get_container_host_ip(), container.get_exposed_port(5432)
        base = f"postgresql://postgres:postgres@{host}:{port}"
        yield Postgres(admin_url=f"{base}/postgres", url_for=lambda db: f"{base}/{db}")


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL server for the whole session with a migrated template database."""
    if os.environ.get("TEST_CONTAINERS") == "1":
        source: Iterator[Postgres] = _containers_postgres()
        server = next(source)
    else:
        cluster = PostgresCluster().start()
        server = Postgres(admin_url=cluster.admin_url, url_for=cluster.url)
    try:
        run_sql(server.admin_url, f'CREATE DATABASE "{TEMPLATE_DB}"')
        upgrade(server.url_for(TEMPLATE_DB))
        yield server
    finally:
        if os.environ.get("TEST_CONTAINERS") == "1":
            next(source, None)
        else:
            cluster.stop()


@contextlib.contextmanager
def fresh_database(postgres: Postgres, template: str | None = TEMPLATE_DB) -> Iterator[str]:
    """A new database; yields its URL, then drops it.

    It is a copy of ``template``: by default the migrated, empty template database;
    ``None`` gives PostgreSQL's plain empty database (no schema).
    """
    name = f"t_{uuid.uuid4().hex[:16]}"
    copy = f' TEMPLATE "{template}"' if template is not None else ""
    run_sql(postgres.admin_url, f'CREATE DATABASE "{name}"{copy}')
    try:
        yield postgres.url_for(name)
    finally:
        run_sql(postgres.admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def database_url(postgres: Postgres) -> Iterator[str]:
    """A fresh, migrated, empty database for one test (copied from the template)."""
    with fresh_database(postgres) as url:
        yield url


@pytest.fixture
def sql(database_url: str) -> Iterator[Callable[..., list[Any]]]:
    """Run one statement on this test's database in its own transaction; returns all rows.

    Parameters are SQLAlchemy's named ones: ``sql("... WHERE id = :id", id=...)``.
    """
    engine = make_engine(database_url)

    def run(statement: str, **params: Any) -> list[Any]:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return list(result.all()) if result.returns_rows else []

    yield run
    engine.dispose()


@pytest.fixture(scope="session")
def opa_server() -> Iterator[OpaServer]:
    """The real OPA binary serving policies/ for the whole session."""
    server = OpaServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server on a free port for the whole session."""
    server = RedisServer().start()
    yield server
    server.close()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied for this test (``rate_limit.storage``).

    A test that stopped or paused Redis may leave it so; it is brought back here.
    """
    redis_server.resume()
    if not redis_server.running:
        redis_server.start()
    assert redis_server.command("FLUSHALL") == b"+OK"
    return redis_server.url


@dataclass
class RunningService:
    """The app served by uvicorn on 127.0.0.1 with handles for assertions."""

    app: Application
    base_url: str
    log: io.StringIO

    @property
    def opa_calls(self) -> int:
        """OPA round trips made so far."""
        return self.app.services.opa.calls

    @property
    def sql_statements(self) -> int:
        """SQL statements sent so far."""
        return self.app.services.sql_statements

    def client(self, token: str | None = None) -> ApiClient:
        """A validating client with ``token``."""
        return ApiClient(self.base_url, token)


def serve_in_thread(app: Application) -> tuple[str, Callable[[], None]]:
    """Run ``app`` under uvicorn in a daemon thread; returns its URL and a stopper.

    The server options (protocol, head limit) are production's (``server_options``).
    """
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="off",
        **server_options(app.services.settings),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)

    return f"http://127.0.0.1:{port}", stop


@contextlib.contextmanager
def start_app(
    database_url: str, opa_url: str, *, tracing: Tracing | None = None, **overrides: Any
) -> Iterator[RunningService]:
    """The app on ``database_url`` and ``opa_url`` under uvicorn in a thread.

    Its log lines go to the service's ``log`` (the root logger's only handler from
    now on; callers clear the handlers when done). Keyword arguments set
    configuration keys by name. On leaving, the server stops, the services close and
    ``tracing`` shuts down.
    """
    log = io.StringIO()
    configure_logging("INFO", log)
    settings: Settings = load_settings(environ={}).replace(
        **{
            "database.url": database_url,
            "opa.url": opa_url,
            "opa.timeout_seconds": 2.0,
            **recording_overrides(),
            **overrides,
        }
    )
    app = create_app(settings, tracing=tracing)
    base_url, stop = serve_in_thread(app)
    try:
        yield RunningService(app=app, base_url=base_url, log=log)
    finally:
        stop()
        app.services.close()
        if tracing is not None:
            tracing.shutdown()


@pytest.fixture
def make_service(
    database_url: str, opa_server: OpaServer
) -> Iterator[Callable[..., RunningService]]:
    """Start the app against this test's database and the session's OPA.

    Keyword arguments set configuration keys by name, e.g.
    ``make_service(**{"agent.context_max_bytes": 64})``; ``tracing`` traces the app
    (e.g. ``Tracing.exporting_to(InMemorySpanExporter(), batch=False)``) and is shut
    down with it.
    """
    with contextlib.ExitStack() as stack:

        def start(
            opa_url: str | None = None, *, tracing: Tracing | None = None, **overrides: Any
        ) -> RunningService:
            return stack.enter_context(
                start_app(database_url, opa_url or opa_server.url, tracing=tracing, **overrides)
            )

        yield start
    logging.getLogger().handlers.clear()
