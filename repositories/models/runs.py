"""Agent work: sessions, runs with their privacy state, follow-ups, steps, and the
bindings of runner containers to agent accounts."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.privacy import TASK_KEY_PATTERN
from repositories.models.base import (
    ACTIVE_RUN_STATES,
    BINDING_STATES,
    FOLLOWUP_STATES,
    RUN_STATES,
    RUN_TRIGGER_KINDS,
    Base,
    cascade_to,
    created_at_column,
    one_of,
    sql_list,
    unique_where,
    uuid_pk,
)

__all__ = ["AgentSession", "Run", "RunFollowup", "RunStep", "SessionBinding"]


class AgentSession(Base):
    """A session of an agent in a thread; at most one per thread is current."""

    __tablename__ = "agent_sessions"
    __table_args__ = (
        unique_where("ux_agent_sessions_current_per_thread", "thread_id", "is_current"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    thread_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("threads.id"))
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    is_current: Mapped[bool]
    started: Mapped[bool] = mapped_column(server_default=text("false"))
    created_at: Mapped[datetime] = created_at_column()


class Run(Base):
    """One invocation of an agent in a thread, plus its privacy state (SPEC section 9).

    The ceiling columns are NULL on runs that predate a guarded write ("uninitialised
    historical policy", reconciled lazily); ``attempted_provider_ids`` only grows.
    Each ceiling carries whether an explicit provider or task policy set it (an
    explicit metadata ceiling prohibits the background answer, the global default at
    the same level does not). ``envelope_version`` is bumped by every scrub and state
    change; envelope rotation compares and swaps on it. The ceilings, the steps and the
    answer are written only by the privacy guard (``repositories/run_privacy.py``).
    """

    __tablename__ = "runs"
    __table_args__ = (
        one_of("trigger_kind", RUN_TRIGGER_KINDS),
        one_of("state", RUN_STATES),
        CheckConstraint(
            f"task_key IS NULL OR task_key ~ '^{TASK_KEY_PATTERN}$'", name="task_key_valid"
        ),
        Index("ix_runs_thread_id", "thread_id"),
        # "Earlier runs of this session", ordered: the session mode and context floor.
        Index("ix_runs_agent_session_id_queued_at", "agent_session_id", "queued_at"),
        Index(
            "ix_runs_active_agent_id",
            "agent_id",
            postgresql_where=text(f"state IN ({sql_list(ACTIVE_RUN_STATES)})"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    thread_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("threads.id"))
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    agent_session_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("agent_sessions.id"))
    trigger_kind: Mapped[str]
    # SET NULL: a run outlives a hard-deleted trigger; the context then answers 404.
    triggering_message_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("messages.id", ondelete="SET NULL")
    )
    triggered_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("principals.id"))
    state: Mapped[str] = mapped_column(server_default=text("'queued'"))
    queued_at: Mapped[datetime] = mapped_column(server_default=func.now())
    audit_content_ceiling: Mapped[str | None]
    background_answer_ceiling: Mapped[str | None]
    attempted_provider_ids: Mapped[list[str]] = mapped_column(
        ARRAY(Text()), server_default=text("'{}'::text[]")
    )
    background_answer: Mapped[str | None]
    sealed_envelope: Mapped[str | None]
    audit_content_ceiling_explicit: Mapped[bool] = mapped_column(server_default=text("false"))
    background_answer_ceiling_explicit: Mapped[bool] = mapped_column(server_default=text("false"))
    task_key: Mapped[str | None]
    envelope_version: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))


class RunFollowup(Base):
    """A message that arrived while a run was active, and what happened to it."""

    __tablename__ = "run_followups"
    __table_args__ = (
        one_of("state", FOLLOWUP_STATES),
        Index("ix_run_followups_run_id", "run_id"),
        Index("ix_run_followups_message_id", "message_id"),
        UniqueConstraint("run_id", "message_id", name="uq_run_followups_run_id_message_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    run_id: Mapped[uuid.UUID] = cascade_to("runs")
    message_id: Mapped[uuid.UUID] = cascade_to("messages")
    state: Mapped[str] = mapped_column(server_default=text("'pending'"))
    created_at: Mapped[datetime] = created_at_column()


class RunStep(Base):
    """A step payload of a run; refiltered when the run's privacy ceiling tightens."""

    __tablename__ = "run_steps"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    run_id: Mapped[uuid.UUID] = cascade_to("runs")
    seq: Mapped[int]
    # Any JSON document; its shape is owned by the run-step use case, not the schema.
    payload: Mapped[Any] = mapped_column(JSONB)
    created_at: Mapped[datetime] = created_at_column()


class SessionBinding(Base):
    """Which agent account a runner's container (then session) acts as.

    Durable so that several app replicas agree; re-enrolment of the runner drops its
    rows, which is why ``enrollment_epoch`` is recorded with each binding. ``run_id``
    is the run the runner bound to the session: relayed calls are then decided for the
    run's requester too while the run is live (issue 21).
    """

    __tablename__ = "session_bindings"
    __table_args__ = (
        UniqueConstraint("runner_id", "container_name"),
        UniqueConstraint("runner_id", "session_id"),
        one_of("state", BINDING_STATES),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    runner_id: Mapped[uuid.UUID] = cascade_to("runners")
    enrollment_epoch: Mapped[int]
    container_name: Mapped[str]
    session_id: Mapped[str | None]
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    state: Mapped[str]
    created_at: Mapped[datetime] = created_at_column()
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
