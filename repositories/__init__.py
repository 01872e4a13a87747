"""Persistence layer: SQLAlchemy models, repositories and Alembic migrations.

The schema lives in :mod:`repositories.models` and is created by the migrations under
``repositories/migrations`` (run them with :func:`repositories.migrate.upgrade`).
Engines are built with :func:`make_engine`, which accepts ``postgresql://`` URLs and
pins the psycopg2 driver (see :mod:`repositories.engine`).
"""

from __future__ import annotations

from repositories.engine import make_engine, normalize_database_url

__all__ = ["make_engine", "normalize_database_url"]
