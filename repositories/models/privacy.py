"""Privacy policies of providers and tasks, and the provider attempts of runs."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, PrimaryKeyConstraint, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.privacy import (
    ATTEMPT_ID_PATTERN,
    ATTEMPT_KINDS,
    PROVIDER_ID_PATTERN,
    TASK_KEY_PATTERN,
)
from repositories.models.base import Base, cascade_to, created_at_column, matches, one_of

__all__ = ["ProviderPolicy", "RunProviderAttempt", "TaskPolicy"]


class _Ceilings:
    """The ceiling columns both policy tables hold: an explicit level, or NULL."""

    audit_content_ceiling: Mapped[str | None]
    background_answer_ceiling: Mapped[str | None]


class ProviderPolicy(_Ceilings, Base):
    """Privacy ceilings of one LLM provider: a row makes the provider known.

    A ceiling column holds an explicit level; NULL means the provider inherits the
    global default of that kind (policy data in ``policies/privacy/scale``). Levels are
    not constrained here: the scale lives in the policies, and a level the policies do
    not know is "unreadable" at the next attempt (fail closed).
    """

    __tablename__ = "provider_policies"
    __table_args__ = (matches("provider_id", PROVIDER_ID_PATTERN),)

    provider_id: Mapped[str] = mapped_column(primary_key=True)


class TaskPolicy(_Ceilings, Base):
    """Explicit privacy ceilings of one task (``runs.task_key``); NULL sets none."""

    __tablename__ = "task_policies"
    __table_args__ = (matches("task_key", TASK_KEY_PATTERN),)

    task_key: Mapped[str] = mapped_column(primary_key=True)


class RunProviderAttempt(Base):
    """One recorded provider attempt of a run: provenance of ids only.

    ``position`` is the attempt's place in ``runs.attempted_provider_ids`` (1-based).
    The key ``(run_id, attempt_id)`` makes a retried attempt a check, not a second
    entry. No prompt, credential or endpoint URL is stored: the CHECKs admit ids only.
    """

    __tablename__ = "run_provider_attempts"
    __table_args__ = (
        PrimaryKeyConstraint("run_id", "attempt_id"),
        UniqueConstraint("run_id", "position"),
        one_of("kind", ATTEMPT_KINDS),
        matches("attempt_id", ATTEMPT_ID_PATTERN),
        matches("provider_id", PROVIDER_ID_PATTERN),
        CheckConstraint("position >= 1", name="position_positive"),
    )

    run_id: Mapped[uuid.UUID] = cascade_to("runs")
    attempt_id: Mapped[str]
    position: Mapped[int]
    provider_id: Mapped[str]
    kind: Mapped[str]
    created_at: Mapped[datetime] = created_at_column()
