"""Alembic migration environment of the service.

The database URL is taken, in this order, from ``config.attributes["database_url"]``
(set by :func:`repositories.migrate.upgrade`), from the ``sqlalchemy.url`` option, or
from the ``DATABASE_URL`` environment variable (for the alembic CLI). It is normalised
with :func:`repositories.engine.normalize_database_url` so ``postgresql://`` works with
psycopg2. A caller may also hand over an open connection in
``config.attributes["connection"]``; it then owns that connection's transaction.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import Connection, pool

from repositories.engine import make_engine, normalize_database_url
from repositories.models import Base

config = context.config
target_metadata = Base.metadata


def _database_url() -> str:
    """Return the normalised database URL, or fail with a message naming the sources."""
    url = (
        config.attributes.get("database_url")
        or config.get_main_option("sqlalchemy.url")
        or os.environ.get("DATABASE_URL")
    )
    if not url:
        raise RuntimeError(
            "no database URL: set DATABASE_URL or pass one to repositories.migrate.upgrade"
        )
    return normalize_database_url(str(url))


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # Autogenerate should notice type changes too, not only added and dropped columns.
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    """Render the migration SQL without a database (``alembic upgrade head --sql``)."""
    context.configure(
        url=_database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on a live database in one transaction."""
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _configure(connection)
        return
    # NullPool: a migration is a one-off; keeping pooled connections would only hold
    # the database open (and block DROP DATABASE in tests) after it finished.
    engine = make_engine(_database_url(), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            _configure(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
