"""The policy revision of denial audit rows.

Revision ID: 0004_policy_revision
Revises: 0003_privacy
Create Date: 2026-12-02

Policies ship as signed OPA bundles whose revision OPA reports with every decision
(``docs/adr/0018-signed-policy-bundles.md``). ``audit_log`` gains ``policy_revision``,
the revision of the bundle that denied, and the aggregation key includes it: denials of
two revisions inside one window of ``audit.deny_aggregate_window`` get a row each, so no
row attributes a count to a policy that did not decide it.

Existing rows keep NULL: which policy denied them was never recorded, and none is
invented. Adding a nullable column rewrites no row; the unique index is rebuilt once.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_policy_revision"
down_revision: str | None = "0003_privacy"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD_KEY = ("actor_id", "action", "resource_kind", "reason", "window_start")
_NEW_KEY = ("actor_id", "action", "resource_kind", "reason", "policy_revision", "window_start")


def upgrade() -> None:
    """Add ``policy_revision`` (NULL for every existing row) to the aggregation key."""
    op.add_column("audit_log", sa.Column("policy_revision", sa.Text(), nullable=True))
    op.create_check_constraint(
        op.f("ck_audit_log_policy_revision_valid"),
        "audit_log",
        "policy_revision IS NULL OR char_length(policy_revision) BETWEEN 1 AND 128",
    )
    op.drop_constraint("uq_audit_log_aggregate", "audit_log", type_="unique")
    op.create_unique_constraint(
        "uq_audit_log_aggregate", "audit_log", list(_NEW_KEY), postgresql_nulls_not_distinct=True
    )


def downgrade() -> None:
    """Drop ``policy_revision``; rows that differed only by revision are merged.

    Their counts are added up and the earliest ``first_at`` and latest ``last_at`` kept,
    so no denial is lost; which revision denied is.
    """
    op.drop_constraint("uq_audit_log_aggregate", "audit_log", type_="unique")
    op.execute(
        """
        WITH groups AS (
            SELECT min(id) AS keep, sum(count) AS total, min(first_at) AS first,
                   max(last_at) AS last, actor_id, action, resource_kind, reason,
                   window_start
            FROM audit_log
            GROUP BY actor_id, action, resource_kind, reason, window_start
            HAVING count(*) > 1
        ), merged AS (
            UPDATE audit_log a
            SET count = g.total, first_at = g.first, last_at = g.last
            FROM groups g
            WHERE a.id = g.keep
            RETURNING g.keep, g.actor_id, g.action, g.resource_kind, g.reason, g.window_start
        )
        DELETE FROM audit_log a
        USING merged m
        WHERE a.id <> m.keep
          AND a.actor_id IS NOT DISTINCT FROM m.actor_id
          AND a.action = m.action
          AND a.resource_kind = m.resource_kind
          AND a.reason = m.reason
          AND a.window_start = m.window_start
        """
    )
    op.drop_constraint(op.f("ck_audit_log_policy_revision_valid"), "audit_log", type_="check")
    op.drop_column("audit_log", "policy_revision")
    op.create_unique_constraint(
        "uq_audit_log_aggregate", "audit_log", list(_OLD_KEY), postgresql_nulls_not_distinct=True
    )
