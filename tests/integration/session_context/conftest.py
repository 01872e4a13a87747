"""One service per test module for the session-context tests.

The resolution writes nothing, so the tests of a module share one database (loaded
once from ``world.yaml`` through the real loader) and one running app against the
session's real PostgreSQL and OPA. A test that changes the world restores it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg2
import pytest

from tests.conftest import Postgres, RunningService, fresh_database, start_app
from tests.support.services import OpaServer
from tests.support.world import load
from world import parse_world_yaml

pytestmark = pytest.mark.integration

WORLD = Path(__file__).with_name("world.yaml")
RESOLVE = "/api/v1/agents/session-context/resolve"


@dataclass
class SessionService(RunningService):
    """The running app with its database, the world's ids and the session's OPA."""

    database_url: str
    ids: dict[str, str]
    opa: OpaServer

    def resolve(self, token: str | None, body: Any) -> Any:
        """POST the resolution as the holder of ``token``."""
        return self.client(token).post(RESOLVE, json=body)

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
    with fresh_database(postgres) as database_url:
        ids = load(database_url, parse_world_yaml(WORLD.read_text(encoding="utf-8")))
        try:
            with start_app(database_url, opa_server.url) as running:
                yield SessionService(
                    app=running.app,
                    base_url=running.base_url,
                    log=running.log,
                    database_url=database_url,
                    ids=dict(ids),
                    opa=opa_server,
                )
        finally:
            logging.getLogger().handlers.clear()
