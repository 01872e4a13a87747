"""The aggregated audit log of denials."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, UniqueConstraint, func, text
from sqlalchemy.orm import Mapped, mapped_column

from repositories.models.base import ACTING_FOR_MODES, Base, one_of

__all__ = ["AuditLog"]


class AuditLog(Base):
    """Aggregated denials: one row per (actor, action, resource kind, reason, policy
    revision, mode, window).

    The unique key treats NULLs as equal (``NULLS NOT DISTINCT``, PostgreSQL 15) so an
    anonymous actor aggregates too and recording is one ``INSERT ... ON CONFLICT DO
    UPDATE``. ``actor_id`` has no foreign key: audit rows outlive principals. Rows never
    hold message content, handles or display names. ``policy_revision`` is the revision
    of the signed policy bundle that denied (OPA's provenance); NULL when the sidecar
    served no bundle revision, and for rows written before it was recorded. Denials of
    two revisions never share a row, so a row always names the policy that decided.
    ``acting_for`` is the mode that decided the denial (``run`` with
    ``acting_for_run_id`` when a relayed call was decided for a bound run's requester
    too, ``own`` otherwise).
    """

    __tablename__ = "audit_log"
    __table_args__ = (
        UniqueConstraint(
            "actor_id",
            "action",
            "resource_kind",
            "reason",
            "policy_revision",
            "acting_for",
            "acting_for_run_id",
            "window_start",
            name="uq_audit_log_aggregate",
            postgresql_nulls_not_distinct=True,
        ),
        CheckConstraint("count >= 1", name="count_positive"),
        CheckConstraint(
            "policy_revision IS NULL OR char_length(policy_revision) BETWEEN 1 AND 128",
            name="policy_revision_valid",
        ),
        one_of("acting_for", ACTING_FOR_MODES),
        CheckConstraint(
            "(acting_for = 'run') = (acting_for_run_id IS NOT NULL)", name="acting_for_run"
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    actor_id: Mapped[uuid.UUID | None]
    action: Mapped[str]
    resource_kind: Mapped[str]
    reason: Mapped[str]
    status: Mapped[int]
    policy_revision: Mapped[str | None]
    window_start: Mapped[datetime]
    count: Mapped[int] = mapped_column(server_default=text("1"))
    first_at: Mapped[datetime] = mapped_column(server_default=func.now())
    last_at: Mapped[datetime] = mapped_column(server_default=func.now())
    acting_for: Mapped[str] = mapped_column(server_default=text("'own'"))
    acting_for_run_id: Mapped[uuid.UUID | None]
