"""Fixtures of the privacy integration tests: one loaded world and service per module.

Tests that do not change the world's policies or schema share ``shared`` (a database
copied from the migrated template, the privacy world, the app on 127.0.0.1) and make
their own runs, so they never see each other's state. Tests that need their own
configuration, schema or policies use ``start_privacy`` (a fresh database per test).
"""

from __future__ import annotations

import io
import logging
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.config import load_settings
from app.logs import configure_logging
from app.main import create_app
from tests.conftest import TEMPLATE_DB, Postgres, serve_in_thread
from tests.support.corpus import recording_overrides
from tests.support.privacy_world import PrivacyWorld, privacy_world
from tests.support.services import OpaServer, run_sql
from tests.support.world import load

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def shared(postgres: Postgres, opa_server: OpaServer) -> Iterator[PrivacyWorld]:
    """The privacy world and the service, shared by the tests of one module."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    run_sql(postgres.admin_url, f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE_DB}"')
    url = postgres.url_for(name)
    ids = load(url, privacy_world())
    configure_logging("INFO", io.StringIO())
    settings = load_settings(environ={}).replace(
        **{
            "database.url": url,
            "opa.url": opa_server.url,
            "opa.timeout_seconds": 2.0,
            **recording_overrides(),
        }
    )
    app = create_app(settings)
    base_url, stop = serve_in_thread(app)
    try:
        yield PrivacyWorld(base_url=base_url, ids=ids, database_url=url)
    finally:
        stop()
        app.services.close()
        logging.getLogger().handlers.clear()
        run_sql(postgres.admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def start_privacy(
    make_service: Callable[..., Any], database_url: str
) -> Callable[..., tuple[PrivacyWorld, Any]]:
    """Load the privacy world into this test's database and start the service.

    ``prepare(database_url)`` runs between loading and starting (to change the schema
    or the policies); keyword arguments are configuration overrides. Returns the
    driver and the running service (its ``log`` holds the app's log lines).
    """

    def start(
        prepare: Callable[[str], None] | None = None, **config: Any
    ) -> tuple[PrivacyWorld, Any]:
        ids = load(database_url, privacy_world())
        if prepare is not None:
            prepare(database_url)
        service = make_service(**config)
        return PrivacyWorld(base_url=service.base_url, ids=ids, database_url=database_url), service

    return start
