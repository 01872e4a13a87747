"""Acting-for: agents that may only act for someone, runs bound to sessions, audit mode.

Revision ID: 0007_acting_for
Revises: 0005_read_bounds
Create Date: 2026-12-02

Issue 21 (an agent working on a run reaches no more than the person who asked):

* ``principals.acting_for``: ``optional`` (the default, the behaviour of every
  existing agent) or ``required`` (the agent may post and list only for the requester
  of a bound run); only agents may require it.
* ``session_bindings.run_id``: the run a runner bound to the session (NULL: none).
  A run that is deleted unbinds itself (``ON DELETE SET NULL``); a run that ends is
  decided as unbound at call time by the policies, from its state.
* ``audit_log.acting_for`` (``own`` or ``run``) and ``acting_for_run_id``: which mode
  decided a denial, part of the aggregation key so denials of different modes (and
  runs) do not share a row. Existing rows are ``own``: before this revision every
  call was decided on the actor's own rights.

The added columns are NULL or have a constant default, so adding them rewrites no
row. The values in the CHECKs are written out so this revision keeps describing the
schema it created after the code moves on.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_acting_for"
down_revision: str | None = "0005_read_bounds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD_AUDIT_KEY = (
    "actor_id",
    "action",
    "resource_kind",
    "reason",
    "policy_revision",
    "window_start",
)
_NEW_AUDIT_KEY = (
    "actor_id",
    "action",
    "resource_kind",
    "reason",
    "policy_revision",
    "acting_for",
    "acting_for_run_id",
    "window_start",
)


def upgrade() -> None:
    """Add the acting-for columns; keep every existing row."""
    op.add_column(
        "principals",
        sa.Column("acting_for", sa.Text(), server_default=sa.text("'optional'"), nullable=False),
    )
    op.create_check_constraint(
        op.f("ck_principals_acting_for_valid"),
        "principals",
        "acting_for IN ('optional', 'required')",
    )
    op.create_check_constraint(
        op.f("ck_principals_acting_for_only_agents"),
        "principals",
        "acting_for = 'optional' OR kind = 'agent'",
    )

    op.add_column("session_bindings", sa.Column("run_id", sa.UUID(), nullable=True))
    op.create_foreign_key(
        op.f("fk_session_bindings_run_id_runs"),
        "session_bindings",
        "runs",
        ["run_id"],
        ["id"],
        ondelete="SET NULL",
    )

    op.add_column(
        "audit_log",
        sa.Column("acting_for", sa.Text(), server_default=sa.text("'own'"), nullable=False),
    )
    op.add_column("audit_log", sa.Column("acting_for_run_id", sa.UUID(), nullable=True))
    op.create_check_constraint(
        op.f("ck_audit_log_acting_for_valid"), "audit_log", "acting_for IN ('own', 'run')"
    )
    op.create_check_constraint(
        op.f("ck_audit_log_acting_for_run"),
        "audit_log",
        "(acting_for = 'run') = (acting_for_run_id IS NOT NULL)",
    )
    op.drop_constraint("uq_audit_log_aggregate", "audit_log", type_="unique")
    op.create_unique_constraint(
        "uq_audit_log_aggregate",
        "audit_log",
        list(_NEW_AUDIT_KEY),
        postgresql_nulls_not_distinct=True,
    )


def downgrade() -> None:
    """Drop the acting-for columns.

    Audit rows of mode ``run`` are folded into the ``own`` rows of their window
    (counts added, first and last times widened) before the old aggregation key comes
    back; bound runs and ``acting_for: required`` are forgotten.
    """
    op.execute(
        """
        WITH folded AS (
            DELETE FROM audit_log WHERE acting_for = 'run'
            RETURNING actor_id, action, resource_kind, reason, status, policy_revision,
                      window_start, count, first_at, last_at
        ), grouped AS (
            SELECT actor_id, action, resource_kind, reason, max(status) AS status,
                   policy_revision, window_start, sum(count)::int AS count,
                   min(first_at) AS first_at, max(last_at) AS last_at
            FROM folded
            GROUP BY actor_id, action, resource_kind, reason, policy_revision, window_start
        )
        INSERT INTO audit_log (actor_id, action, resource_kind, reason, status,
                               policy_revision, window_start, count, first_at, last_at,
                               acting_for)
        SELECT actor_id, action, resource_kind, reason, status, policy_revision,
               window_start, count, first_at, last_at, 'own'
        FROM grouped
        ON CONFLICT (actor_id, action, resource_kind, reason, policy_revision, acting_for,
                     acting_for_run_id, window_start)
        DO UPDATE SET count = audit_log.count + EXCLUDED.count,
                      first_at = least(audit_log.first_at, EXCLUDED.first_at),
                      last_at = greatest(audit_log.last_at, EXCLUDED.last_at)
        """
    )
    op.drop_constraint("uq_audit_log_aggregate", "audit_log", type_="unique")
    op.create_unique_constraint(
        "uq_audit_log_aggregate",
        "audit_log",
        list(_OLD_AUDIT_KEY),
        postgresql_nulls_not_distinct=True,
    )
    op.drop_constraint(op.f("ck_audit_log_acting_for_run"), "audit_log", type_="check")
    op.drop_constraint(op.f("ck_audit_log_acting_for_valid"), "audit_log", type_="check")
    op.drop_column("audit_log", "acting_for_run_id")
    op.drop_column("audit_log", "acting_for")

    op.drop_constraint(
        op.f("fk_session_bindings_run_id_runs"), "session_bindings", type_="foreignkey"
    )
    op.drop_column("session_bindings", "run_id")

    op.drop_constraint(op.f("ck_principals_acting_for_only_agents"), "principals", type_="check")
    op.drop_constraint(op.f("ck_principals_acting_for_valid"), "principals", type_="check")
    op.drop_column("principals", "acting_for")
