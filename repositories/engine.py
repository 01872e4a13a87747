"""Database URL normalisation and engine construction.

SQLAlchemy 2.1 maps a plain ``postgresql://`` URL to the psycopg 3 driver, which this
service does not install; every URL the service receives (configuration, tests,
``DATABASE_URL``) is therefore rewritten to name psycopg2 explicitly before an engine
is built. Keeping that rewrite in one place means no caller has to know about it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson
import psycopg2.extras
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.pool import ConnectionPoolEntry

__all__ = ["make_engine", "normalize_database_url", "ping_after_idle"]

# json columns (fact bundles, attachment lists) are parsed with orjson: several per
# request, and the stdlib parser is the slower one (ADR 0009).
psycopg2.extras.register_default_json(globally=True, loads=orjson.loads)
psycopg2.extras.register_default_jsonb(globally=True, loads=orjson.loads)

_PSYCOPG2_DRIVER = "postgresql+psycopg2"

# Spellings that mean "PostgreSQL with the default driver"; "postgres" is what Heroku
# style URLs and libpq tools use.
_BARE_POSTGRES_SCHEMES = frozenset({"postgresql", "postgres"})


def normalize_database_url(url: str) -> str:
    """Return ``url`` with a bare PostgreSQL scheme rewritten to use psycopg2.

    ``postgresql://`` and ``postgres://`` become ``postgresql+psycopg2://``; a URL that
    already names a driver (``postgresql+psycopg2://``, or any other dialect) is returned
    unchanged, so the function is idempotent.

    Raises:
        sqlalchemy.exc.ArgumentError: ``url`` is not a parseable database URL.
    """
    parsed = make_url(url)
    if parsed.drivername in _BARE_POSTGRES_SCHEMES:
        # render_as_string keeps the password; make_url(...).__str__ would mask it.
        return parsed.set(drivername=_PSYCOPG2_DRIVER).render_as_string(hide_password=False)
    return url


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine for ``url`` after :func:`normalize_database_url`.

    Keyword arguments go to :func:`sqlalchemy.create_engine` unchanged. ``pool_pre_ping``
    defaults to true because the service and its tests restart PostgreSQL underneath a
    live pool; a stale connection should be replaced, not surface as an error.
    ``hide_parameters`` defaults to true: bound values (message content, handles, token
    hashes) never appear in SQLAlchemy's log lines or exception texts.

    Raises:
        sqlalchemy.exc.ArgumentError: ``url`` is not a parseable database URL.
    """
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("hide_parameters", True)
    return create_engine(normalize_database_url(url), **kwargs)


_IDLE_SINCE = "idle_since"


def ping_after_idle(
    engine: Engine, idle_seconds: float, clock: Callable[[], float] = time.monotonic
) -> None:
    """Check a pooled connection with one round trip when it is taken after idling.

    A connection that went back to the pool at least ``idle_seconds`` ago is pinged
    (``SELECT 1``, in autocommit so no transaction is left open) when it is checked
    out. A dead one (the database restarted while the process was quiet) invalidates
    the pool's connections from before now, and the checkout continues on a new
    connection, so the request never sees the stale one. A connection in steady use
    goes back and out again within the threshold and is never pinged: the hot path
    keeps its round trips. A new connection is not pinged either.

    This replaces SQLAlchemy's ``pool_pre_ping``, which pings on every checkout.
    """

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi: Any, record: ConnectionPoolEntry) -> None:
        record.info[_IDLE_SINCE] = clock()

    @event.listens_for(engine, "checkout")
    def _taken(dbapi: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        since = record.info.pop(_IDLE_SINCE, None)
        if since is None or clock() - since < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi)
        except engine.dialect.loaded_dbapi.Error as error:
            # The pool invalidates every connection older than now and reconnects.
            raise exc.InvalidatePoolError() from error
