"""Fixtures of the privacy integration tests: one loaded world and service per module.

Tests that do not change the world's policies or schema share ``shared`` (a database
copied from the migrated template, the privacy world, the app on 127.0.0.1) and make
their own runs, so they never see each other's state. Tests that need their own
configuration, schema or policies use ``start_privacy`` (a fresh database per test).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.conftest import Postgres, fresh_database, start_app
from tests.support.privacy_world import PrivacyWorld, privacy_world
from tests.support.services import OpaServer
from tests.support.world import load

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def shared(postgres: Postgres, opa_server: OpaServer) -> Iterator[PrivacyWorld]:
    """The privacy world and the service, shared by the tests of one module."""
    with fresh_database(postgres) as url:
        ids = load(url, privacy_world())
        try:
            with start_app(url, opa_server.url) as service:
                yield PrivacyWorld(base_url=service.base_url, ids=ids, database_url=url)
        finally:
            logging.getLogger().handlers.clear()


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
