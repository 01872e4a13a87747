"""A restarted PostgreSQL costs no 503 (issue 19): pooled connections that sat idle are
checked when a request takes them (``database.pool_ping_after_idle_seconds``).

The database is a cluster of its own, restarted for real (``pg_ctl restart``, which
cuts every connection). The threshold is set short so the idle wait is short; with the
check effectively off, the first request after the restart fails closed, which shows
that the restart really left the pools holding dead connections.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from repositories.migrate import upgrade
from tests.conftest import RunningService, start_app
from tests.integration.foundation.conftest import extended_world, messages_path
from tests.support.services import OpaServer, PostgresCluster, run_sql
from tests.support.world import load

pytestmark = pytest.mark.integration

IDLE_SECONDS = 0.5


@contextlib.contextmanager
def _served(
    cluster: PostgresCluster, opa: OpaServer, idle_seconds: float
) -> Iterator[tuple[RunningService, dict[str, str]]]:
    """The app on the cluster's database with the world, and the world's ids."""
    ids = load(cluster.url("app"), extended_world())
    overrides: dict[str, Any] = {"database.pool_ping_after_idle_seconds": idle_seconds}
    with start_app(cluster.url("app"), opa.url, **overrides) as service:
        yield service, ids


@pytest.fixture
def cluster() -> Iterator[PostgresCluster]:
    """A cluster of this test's own, with a migrated database ``app`` and the world."""
    own = PostgresCluster().start()
    try:
        run_sql(own.admin_url, 'CREATE DATABASE "app"')
        upgrade(own.url("app"))
        yield own
    finally:
        own.stop()
        logging.getLogger().handlers.clear()


def _use_both_pools(service: Any, ids: dict[str, str]) -> list[int]:
    """A read (autocommit pool) and a post (transaction pool); their statuses."""
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])
    return [
        sam.get(general).status_code,
        sam.post(general, json={"content_md": "After the restart."}).status_code,
        service.client("tok-lotse").get(f"/api/v1/runs/{ids['r1']}/context").status_code,
    ]


def test_a_restarted_database_costs_no_503_after_an_idle_wait(
    cluster: PostgresCluster, opa_server: OpaServer
) -> None:
    with _served(cluster, opa_server, IDLE_SECONDS) as (service, ids):
        assert _use_both_pools(service, ids) == [200, 201, 200]

        cluster.restart()
        time.sleep(2 * IDLE_SECONDS)

        assert _use_both_pools(service, ids) == [200, 201, 200]
        assert '"status": 503' not in service.log.getvalue()


def _counting(ping: Callable[[Any], bool], pings: list[object]) -> Callable[[Any], bool]:
    def counted(connection: Any) -> bool:
        pings.append(connection)
        return ping(connection)

    return counted


def test_only_a_connection_that_sat_idle_is_pinged(
    cluster: PostgresCluster, opa_server: OpaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _served(cluster, opa_server, IDLE_SECONDS) as (service, ids):
        pings: list[object] = []
        for engine in (service.app.services.engine, service.app.services.read_engine):
            monkeypatch.setattr(engine.dialect, "do_ping", _counting(engine.dialect.do_ping, pings))
        sam = service.client("tok-sam")
        general = messages_path(ids["support/general"])
        assert sam.get(general).status_code == 200

        for _ in range(5):
            assert sam.get(general).status_code == 200
        hot = len(pings)
        time.sleep(2 * IDLE_SECONDS)
        assert sam.get(general).status_code == 200

        assert hot == 0  # the hot path gains no round trip
        assert len(pings) >= 1  # the connection that idled was checked once


def test_without_the_check_a_restart_surfaces_once_as_a_503(
    cluster: PostgresCluster, opa_server: OpaServer
) -> None:
    with _served(cluster, opa_server, 3600) as (service, ids):
        sam = service.client("tok-sam")
        general = messages_path(ids["support/general"])
        assert sam.get(general).status_code == 200

        cluster.restart()

        # The pooled connection is dead; the request fails closed and the pools start
        # afresh. This is what checking idle connections avoids.
        assert sam.get(general).status_code == 503
        assert sam.get(general).status_code == 200
