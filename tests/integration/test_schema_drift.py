"""The migrations and ``repositories/models/`` describe the same schema.

Alembic's autogenerate comparison (the same one ``alembic revision --autogenerate``
runs, with type and server-default comparison on) finds no difference between the
models and a database migrated to head. A model change without a migration, or a
migration without the model change, fails here.
"""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from repositories import make_engine
from repositories.models import Base

pytestmark = pytest.mark.integration


def test_the_migrated_database_matches_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "compare_server_default": True}
            )
            differences = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()

    assert differences == []
