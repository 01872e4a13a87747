"""Migration 0007_acting_for: keeps every row, adds the modes, folds them on the way back.

Existing agents become ``acting_for: optional`` (their behaviour before issue 21),
existing bindings have no run, existing audit rows were decided in mode ``own``; the
database refuses ``acting_for: required`` for anything but an agent and an audit row
in mode ``run`` without its run. The downgrade folds mode-``run`` rows into the
``own`` rows of their window before the old aggregation key comes back.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg2
import pytest
from alembic import command

from repositories.migrate import alembic_config, upgrade
from tests.conftest import Postgres, fresh_database
from tests.support.services import run_sql

pytestmark = pytest.mark.integration

_AGENT, _PERSON, _SPACE, _CHANNEL, _THREAD, _RUN, _RUNNER = (
    f"00000000-0000-0000-0000-00000000000{c}" for c in "abcdef1"
)
_WINDOW = "2026-12-01T12:00:00Z"

_LEGACY = f"""
INSERT INTO principals (id, kind, handle, display_name)
  VALUES ('{_AGENT}', 'agent', 'lotse', 'Lotse'), ('{_PERSON}', 'user', 'alex', 'Alex');
INSERT INTO spaces (id, name) VALUES ('{_SPACE}', 'support');
INSERT INTO channels (id, space_id, name) VALUES ('{_CHANNEL}', '{_SPACE}', 'general');
INSERT INTO threads (id, channel_id, kind) VALUES ('{_THREAD}', '{_CHANNEL}', 'main');
INSERT INTO runs (id, thread_id, agent_id, trigger_kind, state)
  VALUES ('{_RUN}', '{_THREAD}', '{_AGENT}', 'command', 'running');
INSERT INTO runners (id, handle, enrollment_epoch, enrolled_at)
  VALUES ('{_RUNNER}', 'runner-1', 1, now());
INSERT INTO session_bindings (runner_id, enrollment_epoch, container_name, session_id,
                              agent_id, state)
  VALUES ('{_RUNNER}', 1, 'ws-1', 'sess-1', '{_AGENT}', 'bound');
INSERT INTO audit_log (actor_id, action, resource_kind, reason, status, window_start, count)
  VALUES ('{_AGENT}', 'message.post', 'channel', 'no_grant', 403, '{_WINDOW}', 3);
"""


@pytest.fixture
def scratch_url(postgres: Postgres) -> Iterator[str]:
    """An empty database (not from the template) to migrate step by step."""
    with fresh_database(postgres, template=None) as url:
        yield url


def test_the_upgrade_keeps_every_row_in_the_behaviour_before_acting_for(scratch_url: str) -> None:
    upgrade(scratch_url, "0003_privacy")
    run_sql(scratch_url, _LEGACY)

    upgrade(scratch_url)

    assert run_sql(scratch_url, "SELECT handle, acting_for FROM principals ORDER BY 1") == [
        ("alex", "optional"),
        ("lotse", "optional"),
    ]
    assert run_sql(scratch_url, "SELECT session_id, run_id FROM session_bindings") == [
        ("sess-1", None)
    ]
    assert run_sql(
        scratch_url, "SELECT reason, count, acting_for, acting_for_run_id FROM audit_log"
    ) == [("no_grant", 3, "own", None)]


@pytest.mark.parametrize(
    "statement",
    [
        f"UPDATE principals SET acting_for = 'required' WHERE id = '{_PERSON}'",
        f"UPDATE principals SET acting_for = 'always' WHERE id = '{_AGENT}'",
        "UPDATE audit_log SET acting_for = 'run'",
        f"UPDATE audit_log SET acting_for_run_id = '{_RUN}'",
    ],
)
def test_the_database_refuses_what_the_modes_do_not_allow(scratch_url: str, statement: str) -> None:
    upgrade(scratch_url, "0003_privacy")
    run_sql(scratch_url, _LEGACY)
    upgrade(scratch_url)

    with pytest.raises(psycopg2.errors.CheckViolation):
        run_sql(scratch_url, statement)


def test_deleting_a_bound_run_unbinds_it(scratch_url: str) -> None:
    upgrade(scratch_url, "0003_privacy")
    run_sql(scratch_url, _LEGACY)
    upgrade(scratch_url)
    run_sql(scratch_url, f"UPDATE session_bindings SET run_id = '{_RUN}'")

    run_sql(scratch_url, f"DELETE FROM runs WHERE id = '{_RUN}'")

    assert run_sql(scratch_url, "SELECT run_id FROM session_bindings") == [(None,)]


def test_the_downgrade_folds_run_mode_denials_into_the_own_rows(scratch_url: str) -> None:
    upgrade(scratch_url, "0003_privacy")
    run_sql(scratch_url, _LEGACY)
    upgrade(scratch_url)
    run_sql(
        scratch_url,
        f"""
        INSERT INTO audit_log (actor_id, action, resource_kind, reason, status,
                               window_start, count, acting_for, acting_for_run_id)
        VALUES ('{_AGENT}', 'message.post', 'channel', 'no_grant', 403, '{_WINDOW}', 2,
                'run', '{_RUN}'),
               ('{_AGENT}', 'message.post', 'channel', 'acting_for_exceeded', 403,
                '{_WINDOW}', 4, 'run', '{_RUN}')
        """,
    )
    run_sql(scratch_url, f"UPDATE principals SET acting_for = 'required' WHERE id = '{_AGENT}'")

    command.downgrade(alembic_config(scratch_url), "0003_privacy")

    assert run_sql(scratch_url, "SELECT reason, status, count FROM audit_log ORDER BY reason") == [
        ("acting_for_exceeded", 403, 4),
        ("no_grant", 403, 5),
    ]
    columns = run_sql(
        scratch_url,
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE (column_name IN ('acting_for', 'acting_for_run_id') "
        "OR (table_name = 'session_bindings' AND column_name = 'run_id')) "
        "AND table_schema = 'public'",
    )
    assert columns == []
    upgrade(scratch_url)  # and up again
