"""Provider privacy ceilings: explicit flags, task policies, attempts, envelope version.

Revision ID: 0003_privacy
Revises: 0001_initial
Create Date: 2026-12-01

Adds what the privacy guard (SPEC section 9, decisions.md S4) needs beyond the columns the
initial schema created:

* ``runs``: whether each ceiling was set explicitly, the run's ``task_key`` and the
  ``envelope_version`` that envelope rotation compares and swaps on. The new columns
  are NULL or have a constant default, so adding them rewrites no row (PostgreSQL 11
  and later) and purges nothing: a run with NULL ceilings is an uninitialised
  historical run, reconciled lazily at its first guarded write or attempt.
* ``provider_policies``: a ceiling column now holds an explicit level or NULL for
  "inherits the global default"; the old all-or-nothing ``explicit`` flag is folded
  into that (a non-explicit row inherits both ceilings). Provider ids must be ids.
* ``task_policies`` and ``run_provider_attempts`` (one row per recorded attempt id).

The values in the CHECKs are written out rather than imported, so that this revision
keeps describing the schema it created after the code moves on.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_privacy"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PROVIDER_ID = "^[a-z0-9][a-z0-9._-]{0,63}$"
_TASK_KEY = "^[a-z0-9][a-z0-9._-]{0,63}$"
_ATTEMPT_ID = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


def upgrade() -> None:
    """Add the privacy columns and tables; keep every existing row."""
    op.add_column(
        "runs",
        sa.Column(
            "audit_content_ceiling_explicit",
            sa.Boolean(),
            server_default=sa.text("false"),
            nullable=False,
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "background_answer_ceiling_explicit",
            sa.Boolean(),
            server_default=sa.text("false"),
            nullable=False,
        ),
    )
    op.add_column("runs", sa.Column("task_key", sa.Text(), nullable=True))
    op.add_column(
        "runs",
        sa.Column("envelope_version", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )
    op.create_check_constraint(
        op.f("ck_runs_task_key_valid"), "runs", f"task_key IS NULL OR task_key ~ '{_TASK_KEY}'"
    )

    op.alter_column("provider_policies", "audit_content_ceiling", nullable=True)
    op.alter_column("provider_policies", "background_answer_ceiling", nullable=True)
    op.execute(
        "UPDATE provider_policies SET audit_content_ceiling = NULL, "
        "background_answer_ceiling = NULL WHERE NOT explicit"
    )
    op.drop_column("provider_policies", "explicit")
    op.create_check_constraint(
        op.f("ck_provider_policies_provider_id_valid"),
        "provider_policies",
        f"provider_id ~ '{_PROVIDER_ID}'",
    )

    op.create_table(
        "task_policies",
        sa.Column("task_key", sa.Text(), nullable=False),
        sa.Column("audit_content_ceiling", sa.Text(), nullable=True),
        sa.Column("background_answer_ceiling", sa.Text(), nullable=True),
        sa.CheckConstraint(
            f"task_key ~ '{_TASK_KEY}'", name=op.f("ck_task_policies_task_key_valid")
        ),
        sa.PrimaryKeyConstraint("task_key", name=op.f("pk_task_policies")),
    )
    op.create_table(
        "run_provider_attempts",
        sa.Column("run_id", sa.UUID(), nullable=False),
        sa.Column("attempt_id", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("provider_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            f"attempt_id ~ '{_ATTEMPT_ID}'", name=op.f("ck_run_provider_attempts_attempt_id_valid")
        ),
        sa.CheckConstraint(
            "kind IN ('chat', 'tool')", name=op.f("ck_run_provider_attempts_kind_valid")
        ),
        sa.CheckConstraint(
            "position >= 1", name=op.f("ck_run_provider_attempts_position_positive")
        ),
        sa.CheckConstraint(
            f"provider_id ~ '{_PROVIDER_ID}'",
            name=op.f("ck_run_provider_attempts_provider_id_valid"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_run_provider_attempts_run_id_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "attempt_id", name=op.f("pk_run_provider_attempts")),
        sa.UniqueConstraint(
            "run_id", "position", name=op.f("uq_run_provider_attempts_run_id_position")
        ),
    )


def downgrade() -> None:
    """Drop the privacy additions (attempt records and task policies are lost).

    Provider policies get their single ``explicit`` flag back: explicit when both
    ceilings were set; an inherited ceiling is written out as ``metadata``, the global
    default this revision shipped with.
    """
    op.drop_table("run_provider_attempts")
    op.drop_table("task_policies")
    op.drop_constraint(
        op.f("ck_provider_policies_provider_id_valid"), "provider_policies", type_="check"
    )
    op.add_column(
        "provider_policies",
        sa.Column("explicit", sa.Boolean(), server_default=sa.text("false"), nullable=False),
    )
    op.execute(
        "UPDATE provider_policies SET explicit = (audit_content_ceiling IS NOT NULL "
        "AND background_answer_ceiling IS NOT NULL), "
        "audit_content_ceiling = COALESCE(audit_content_ceiling, 'metadata'), "
        "background_answer_ceiling = COALESCE(background_answer_ceiling, 'metadata')"
    )
    op.alter_column("provider_policies", "audit_content_ceiling", nullable=False)
    op.alter_column("provider_policies", "background_answer_ceiling", nullable=False)
    op.drop_constraint(op.f("ck_runs_task_key_valid"), "runs", type_="check")
    for column in (
        "envelope_version",
        "task_key",
        "background_answer_ceiling_explicit",
        "audit_content_ceiling_explicit",
    ):
        op.drop_column("runs", column)
