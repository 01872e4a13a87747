"""Schema: the privacy migration purges nothing, and a missing column fails closed.

decisions.md S4-6: install the added run columns before deploying workers; missing
columns block guarded writes and dispatch; historical rows stay readable and no historical
attempt provenance is fabricated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from alembic import command

from repositories.migrate import alembic_config, upgrade
from tests.conftest import Postgres, fresh_database
from tests.support.privacy_world import PrivacyWorld
from tests.support.services import run_sql

pytestmark = pytest.mark.integration

Start = Callable[..., tuple[PrivacyWorld, Any]]


def _execute(statement: str) -> Callable[[str], None]:
    def prepare(database_url: str) -> None:
        run_sql(database_url, statement)

    return prepare


@pytest.mark.parametrize(
    ("statement", "privacy_readable"),
    [
        ("ALTER TABLE runs DROP COLUMN envelope_version", False),
        ("ALTER TABLE runs DROP COLUMN background_answer_ceiling_explicit", False),
        ("DROP TABLE task_policies", True),
    ],
)
def test_a_missing_schema_part_fails_closed_for_guarded_writes_and_dispatch(
    start_privacy: Start, statement: str, privacy_readable: bool
) -> None:
    world, service = start_privacy(_execute(statement))
    run = world.id("historical")

    attempt = world.attempt_response(run, "open-full")
    step = world.step_response(run, {"kind": "note", "content": "must not be stored"})
    answer = world.answer_response(run, "must not be stored")
    rotate = world.rotate_response(run, '"0"')
    privacy = world.privacy_response(run)
    context = world.client().get(f"/api/v1/runs/{run}/context")

    for refused in (attempt, step, answer, rotate):
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "service_unavailable"
    assert privacy.status_code == (200 if privacy_readable else 503)
    assert context.status_code == 200  # the historical run stays readable
    assert '"reason": "schema_missing"' in service.log.getvalue()
    rows = world.sql(
        "SELECT attempted_provider_ids, background_answer, audit_content_ceiling "
        "FROM runs WHERE id = %(id)s",
        id=run,
    )
    assert rows == [
        {"attempted_provider_ids": [], "background_answer": None, "audit_content_ceiling": None}
    ]
    assert world.sql("SELECT count(*) AS n FROM run_steps")[0]["n"] == 0


@pytest.fixture
def scratch_url(postgres: Postgres) -> Iterator[str]:
    """An empty database (not from the template) to migrate step by step."""
    with fresh_database(postgres, template=None) as url:
        yield url


_AGENT, _SPACE, _CHANNEL, _THREAD, _RUN = (
    f"00000000-0000-0000-0000-00000000000{c}" for c in "abcde"
)

_LEGACY_WORLD = f"""
INSERT INTO principals (id, kind, handle, display_name)
  VALUES ('{_AGENT}', 'agent', 'lotse', 'Lotse');
INSERT INTO spaces (id, name) VALUES ('{_SPACE}', 'support');
INSERT INTO channels (id, space_id, name) VALUES ('{_CHANNEL}', '{_SPACE}', 'general');
INSERT INTO threads (id, channel_id, kind) VALUES ('{_THREAD}', '{_CHANNEL}', 'main');
INSERT INTO runs (id, thread_id, agent_id, trigger_kind, state, background_answer)
  VALUES ('{_RUN}', '{_THREAD}', '{_AGENT}', 'command', 'succeeded', 'An old answer.');
INSERT INTO run_steps (run_id, seq, payload)
  VALUES ('{_RUN}', 1, '{{"kind": "chat_request", "content": "old"}}');
INSERT INTO provider_policies
  (provider_id, audit_content_ceiling, background_answer_ceiling, explicit)
  VALUES ('legacy-default', 'metadata', 'metadata', false),
         ('legacy-explicit', 'none', 'full', true);
"""


def test_the_privacy_migration_keeps_historical_rows_and_invents_nothing(
    scratch_url: str,
) -> None:
    upgrade(scratch_url, "0001_initial")
    run_sql(scratch_url, _LEGACY_WORLD)

    upgrade(scratch_url)

    assert run_sql(
        scratch_url,
        "SELECT state, background_answer, audit_content_ceiling, background_answer_ceiling, "
        "audit_content_ceiling_explicit, background_answer_ceiling_explicit, "
        "attempted_provider_ids, task_key, envelope_version FROM runs",
    ) == [("succeeded", "An old answer.", None, None, False, False, [], None, 0)]
    assert run_sql(scratch_url, "SELECT payload FROM run_steps") == [
        ({"kind": "chat_request", "content": "old"},)
    ]
    assert run_sql(scratch_url, "SELECT count(*) FROM run_provider_attempts") == [(0,)]
    assert run_sql(
        scratch_url,
        "SELECT provider_id, audit_content_ceiling, background_answer_ceiling "
        "FROM provider_policies ORDER BY provider_id",
    ) == [("legacy-default", None, None), ("legacy-explicit", "none", "full")]


def test_the_privacy_migration_downgrades_to_the_initial_schema(scratch_url: str) -> None:
    upgrade(scratch_url, "0001_initial")
    run_sql(scratch_url, _LEGACY_WORLD)
    upgrade(scratch_url)

    command.downgrade(alembic_config(scratch_url), "0001_initial")

    assert run_sql(
        scratch_url,
        "SELECT provider_id, audit_content_ceiling, background_answer_ceiling, explicit "
        "FROM provider_policies ORDER BY provider_id",
    ) == [
        ("legacy-default", "metadata", "metadata", False),
        ("legacy-explicit", "none", "full", True),
    ]
    assert run_sql(scratch_url, "SELECT background_answer FROM runs") == [("An old answer.",)]
