"""One service per test module for the session-context tests.

The resolution writes nothing, so the tests of a module share one database (loaded
once from ``world.yaml`` through the real loader) and one running app against the
session's real PostgreSQL and OPA. A test that changes the world restores it.
"""

from __future__ import annotations

import io
import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg2
import pytest

from app.config import load_settings
from app.logs import configure_logging
from app.main import Application, create_app
from app.world import parse_world_yaml
from tests.conftest import TEMPLATE_DB, Postgres, serve_in_thread
from tests.support.client import ApiClient
from tests.support.corpus import recording_overrides
from tests.support.services import OpaServer, run_sql
from tests.support.world import load

pytestmark = pytest.mark.integration

WORLD = Path(__file__).with_name("world.yaml")
RESOLVE = "/api/v1/agents/session-context/resolve"


@dataclass
class SessionService:
    """The running app, its database, the world's ids and the captured log."""

    app: Application
    base_url: str
    database_url: str
    ids: dict[str, str]
    log: io.StringIO
    opa: OpaServer

    def client(self, token: str | None = None) -> ApiClient:
        """A client that validates every response against the spec."""
        return ApiClient(self.base_url, token)

    def resolve(self, token: str | None, body: Any) -> Any:
        """POST the resolution as the holder of ``token``."""
        return self.client(token).post(RESOLVE, json=body)

    @property
    def opa_calls(self) -> int:
        """OPA round trips made so far."""
        return self.app.services.opa.calls

    @property
    def sql_statements(self) -> int:
        """SQL statements sent so far."""
        return self.app.services.sql_statements

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement in its own committed transaction; returns its rows."""
        conn = psycopg2.connect(self.database_url)
        try:
            with conn, conn.cursor() as cursor:
                cursor.execute(statement, params)
                return list(cursor.fetchall()) if cursor.description else []
        finally:
            conn.close()


@pytest.fixture(scope="module")
def service(postgres: Postgres, opa_server: OpaServer) -> Iterator[SessionService]:
    """The session-context world served once for the whole module."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    run_sql(postgres.admin_url, f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE_DB}"')
    database_url = postgres.url_for(name)
    stoppers: list[Callable[[], None]] = []
    try:
        ids = load(database_url, parse_world_yaml(WORLD.read_text(encoding="utf-8")))
        log = io.StringIO()
        configure_logging("INFO", log)
        settings = load_settings(environ={}).replace(
            **{
                "database.url": database_url,
                "opa.url": opa_server.url,
                "opa.timeout_seconds": 2.0,
                **recording_overrides(),
            }
        )
        app = create_app(settings)
        base_url, stop = serve_in_thread(app)
        stoppers.extend([stop, app.services.close])
        yield SessionService(
            app=app,
            base_url=base_url,
            database_url=database_url,
            ids=dict(ids),
            log=log,
            opa=opa_server,
        )
    finally:
        for stop in stoppers:
            stop()
        logging.getLogger().handlers.clear()
        run_sql(postgres.admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
