"""The app as operators run it on the demo world, for measurements outside pytest.

``make bench``'s worst-request part (``tests/load/bounds.py``) and the decision-log
measurement (``tests/load/decision_logs.py``) start the same things: a throwaway
PostgreSQL cluster and the real OPA (:func:`local_sources`), then ``python -m app
serve`` with one worker on a database of the demo world, rate limits off
(:func:`serve_demo_world`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from app.config import SCHEMA
from repositories.migrate import upgrade
from tests.support.services import AppProcess, OpaServer, PostgresCluster, run_sql
from tests.support.world import demo_world, load

__all__ = ["local_sources", "rate_limits_off", "serve_demo_world"]


@contextlib.contextmanager
def local_sources() -> Iterator[tuple[PostgresCluster, OpaServer]]:
    """A throwaway cluster and the real OPA (deploy configuration); stopped on leaving."""
    with contextlib.ExitStack() as stack:
        cluster = PostgresCluster()
        stack.callback(cluster.stop)
        cluster.start()
        opa = OpaServer()
        stack.callback(lambda: Path(opa.log_path).unlink(missing_ok=True))
        stack.callback(opa.stop)
        opa.start()
        yield cluster, opa


def rate_limits_off() -> dict[str, str]:
    """The environment that turns every per-minute rate limit off (a served app under
    measurement sends far more than a person would); the other rate-limit keys keep
    their defaults."""
    return {key.env_name: "0" for key in SCHEMA if key.name.endswith(".per_minute")}


def one_worker_env(
    database_url: str, opa_url: str, *, drop: Callable[[str], bool] | None = None
) -> dict[str, str]:
    """The environment of a measured ``python -m app serve``: this process's variables
    without ``CONFIG_FILE`` (and those ``drop`` names), one worker on ``database_url``
    and ``opa_url``, warnings only, unbuffered, every per-minute rate limit off."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name != "CONFIG_FILE" and (drop is None or not drop(name))
    }
    env.update(
        {
            "DATABASE_URL": database_url,
            "OPA_URL": opa_url,
            "SERVER_WORKERS": "1",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            **rate_limits_off(),
        }
    )
    return env


@contextlib.contextmanager
def serve_demo_world(
    cluster: PostgresCluster, opa_url: str, database: str
) -> Iterator[tuple[AppProcess, dict[str, str]]]:
    """``python -m app serve`` (one worker) on a new database ``database`` of the demo
    world; yields the process, once ready, and the world's ids."""
    run_sql(cluster.admin_url, f'CREATE DATABASE "{database}"')
    database_url = cluster.url(database)
    upgrade(database_url)
    ids = load(database_url, demo_world())
    env = one_worker_env(database_url, opa_url)
    with (
        tempfile.TemporaryDirectory(prefix=f"{database}-") as work,
        AppProcess.start(("app", "serve"), env, Path(work) / "app.log", name=database) as app,
    ):
        app.wait_ready()
        yield app, ids
