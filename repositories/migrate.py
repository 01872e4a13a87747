"""Run the schema migrations programmatically.

Used by ``python -m app migrate``, ``make run`` and the test fixtures. The Alembic
configuration is built in code with ``script_location`` resolved relative to this
package, so migrating works from any working directory and needs no ``alembic.ini``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from repositories.engine import normalize_database_url

__all__ = ["MIGRATIONS_DIR", "alembic_config", "upgrade"]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config(database_url: str) -> Config:
    """Return an Alembic :class:`~alembic.config.Config` for ``database_url``.

    The URL travels in ``Config.attributes`` rather than as the ``sqlalchemy.url``
    option because options go through configparser interpolation, which would break
    on a percent-encoded password.

    Raises:
        sqlalchemy.exc.ArgumentError: ``database_url`` is not a parseable URL.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["database_url"] = normalize_database_url(database_url)
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Migrate the database at ``database_url`` to ``revision`` (default: the newest).

    Idempotent: an up-to-date database is left as it is. All steps of one call run in
    one transaction (PostgreSQL has transactional DDL), so a failing migration leaves
    the schema where it was.

    Raises:
        sqlalchemy.exc.OperationalError: the database cannot be reached.
        alembic.util.exc.CommandError: ``revision`` is unknown.
    """
    command.upgrade(alembic_config(database_url), revision)
