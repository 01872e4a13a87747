"""SQLAlchemy 2 models of the service's PostgreSQL schema (SPEC section 4).

The tables are the facts the app gathers for OPA; no table encodes a permission rule.
Conventions, chosen so that the schema protects itself even against a buggy writer:

* Primary keys are ``uuid`` with the server default ``gen_random_uuid()`` (built into
  PostgreSQL 13 and later, so no extension is needed). Writers that must know an id
  before inserting (the world loader) may still supply one.
* Timestamps are ``timestamptz``; ``created_at`` defaults to ``now()``.
* Enumerations are ``text`` columns with a ``CHECK (col IN (...))`` rather than
  PostgreSQL enum types: adding a value is then a plain constraint swap in a migration
  instead of an ``ALTER TYPE`` that cannot run inside a transaction on older servers.
  The allowed values are exported as tuples (``PRINCIPAL_KINDS``, ...) so that input
  validation (for example the world fixture schema) uses the same lists.
* Every constraint and index has a deterministic name (see ``NAMING_CONVENTION``) so
  the migrations can refer to them and errors can be mapped back to a cause.

The migrations ``repositories/migrations/versions/`` create exactly this schema (0001
the initial tables, 0003 the privacy columns and tables, 0004 the policy revision of
audit rows, 0005 the threads' last position, 0007 acting-for); change both together.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, ClassVar, Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, MappedColumn, mapped_column

from app.domain.privacy import (
    ATTEMPT_ID_PATTERN,
    ATTEMPT_KINDS,
    PROVIDER_ID_PATTERN,
    TASK_KEY_PATTERN,
)

__all__ = [
    "ACTING_FOR_MODES",
    "ACTING_FOR_VALUES",
    "ACTIVE_RUN_STATES",
    "ATTEMPT_KINDS",
    "BINDING_STATES",
    "CHANNEL_KINDS",
    "FOLLOWUP_STATES",
    "GRANT_LEVELS",
    "MESSAGE_KINDS",
    "MESSAGE_ORIGINS",
    "NAMING_CONVENTION",
    "PRINCIPAL_KINDS",
    "PRINCIPAL_STATUSES",
    "RUN_STATES",
    "RUN_TRIGGER_KINDS",
    "SCAN_STATUSES",
    "THREAD_KINDS",
    "TOKEN_KINDS",
    "AgentSession",
    "ApiToken",
    "Attachment",
    "AuditLog",
    "Base",
    "Channel",
    "ChannelMember",
    "Grant",
    "Group",
    "GroupMember",
    "Message",
    "Principal",
    "PrincipalPermission",
    "ProviderPolicy",
    "Run",
    "RunFollowup",
    "RunProviderAttempt",
    "RunStep",
    "Runner",
    "SessionBinding",
    "Space",
    "TaskPolicy",
    "Thread",
]

PRINCIPAL_KINDS: Final = ("user", "agent", "app")
PRINCIPAL_STATUSES: Final = ("active", "pending", "disabled", "deleted")
TOKEN_KINDS: Final = ("session", "agent", "app", "runner")
CHANNEL_KINDS: Final = ("regular", "dm")
# Listed from weakest to strongest for readers; the ordering is decided in Rego, never
# by comparing positions in Python.
GRANT_LEVELS: Final = ("read", "write", "trigger", "manage")
THREAD_KINDS: Final = ("main", "thread", "forum_post")
MESSAGE_ORIGINS: Final = ("human", "agent", "app", "import", "system")
MESSAGE_KINDS: Final = ("text", "system", "file")
SCAN_STATUSES: Final = ("pending", "clean", "infected", "failed")
RUN_TRIGGER_KINDS: Final = ("message", "command", "interaction")
RUN_STATES: Final = ("queued", "running", "waiting_input", "succeeded", "failed", "cancelled")
ACTIVE_RUN_STATES: Final = ("queued", "running", "waiting_input")
FOLLOWUP_STATES: Final = ("pending", "delivered", "absorbed", "dropped")
BINDING_STATES: Final = ("provisioned", "bound", "stopped")
# principals.acting_for: "required" agents may post and list only for a bound run's
# requester (issue 21); the rule itself is decided in Rego (policies/authz/actingfor).
ACTING_FOR_VALUES: Final = ("optional", "required")
# audit_log.acting_for: the mode that decided a denial.
ACTING_FOR_MODES: Final = ("own", "run")

NAMING_CONVENTION: Final[dict[str, str]] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def _sql_list(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{value}'" for value in values)


def _one_of(column: str, values: tuple[str, ...]) -> CheckConstraint:
    """CHECK that ``column`` holds one of ``values``; named ``ck_<table>_<column>_valid``."""
    return CheckConstraint(f"{column} IN ({_sql_list(values)})", name=f"{column}_valid")


def _matches(column: str, pattern: str) -> CheckConstraint:
    """CHECK that ``column`` matches ``pattern`` in full; named ``ck_<table>_<column>_valid``.

    PostgreSQL's ``$`` matches only at the end of the string, so a trailing newline
    cannot slip through as it can with Python's ``re.search``.
    """
    return CheckConstraint(f"{column} ~ '^{pattern}$'", name=f"{column}_valid")


def _uuid_pk() -> MappedColumn[Any]:
    return mapped_column(
        UUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()")
    )


def _created_at() -> MappedColumn[Any]:
    return mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())


class Base(DeclarativeBase):
    """Declarative base carrying the shared metadata and its naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        uuid.UUID: UUID(as_uuid=True),
        datetime: DateTime(timezone=True),
        str: Text(),
        int: Integer(),
        bool: Boolean(),
    }


class Principal(Base):
    """A user, agent or app that can act; identified by a unique ``handle``.

    Email is stored only for users and must never reach an agent-facing response.
    Agents carry the user who owns them and the channel they were minted with.
    """

    __tablename__ = "principals"
    __table_args__ = (
        _one_of("kind", PRINCIPAL_KINDS),
        _one_of("status", PRINCIPAL_STATUSES),
        CheckConstraint("email IS NULL OR kind = 'user'", name="email_only_users"),
        CheckConstraint("NOT is_owner OR kind = 'user'", name="owner_only_users"),
        CheckConstraint("owner_user_id IS NULL OR kind = 'agent'", name="owner_user_only_agents"),
        CheckConstraint(
            "home_channel_id IS NULL OR kind = 'agent'", name="home_channel_only_agents"
        ),
        _one_of("acting_for", ACTING_FOR_VALUES),
        CheckConstraint("acting_for = 'optional' OR kind = 'agent'", name="acting_for_only_agents"),
        UniqueConstraint("handle"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    kind: Mapped[str]
    handle: Mapped[str]
    display_name: Mapped[str]
    email: Mapped[str | None]
    status: Mapped[str] = mapped_column(server_default=text("'active'"))
    is_owner: Mapped[bool] = mapped_column(server_default=text("false"))
    owner_user_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("principals.id"))
    # use_alter: principals and channels reference each other (channels.operator_agent_id),
    # so this key is added after both tables exist.
    home_channel_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("channels.id", use_alter=True)
    )
    created_at: Mapped[datetime] = _created_at()
    # Agents only: "required" means the agent may post and list only for the requester
    # of a run bound to its session (issue 21).
    acting_for: Mapped[str] = mapped_column(server_default=text("'optional'"))


class Group(Base):
    """A named set of principals that grants can target as one subject."""

    __tablename__ = "groups"
    __table_args__ = (UniqueConstraint("key"),)

    id: Mapped[uuid.UUID] = _uuid_pk()
    key: Mapped[str]
    created_at: Mapped[datetime] = _created_at()


class GroupMember(Base):
    """Membership of a principal in a group."""

    __tablename__ = "group_members"
    __table_args__ = (
        PrimaryKeyConstraint("group_id", "principal_id"),
        # The primary key serves "members of a group"; this serves "groups of a
        # principal", which every fact bundle needs.
        Index("ix_group_members_principal_id", "principal_id"),
    )

    group_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("groups.id", ondelete="CASCADE"))
    principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id", ondelete="CASCADE"))


class PrincipalPermission(Base):
    """A permission string (for example ``matters:read``) held by a principal."""

    __tablename__ = "principal_permissions"
    __table_args__ = (PrimaryKeyConstraint("principal_id", "permission"),)

    principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id", ondelete="CASCADE"))
    permission: Mapped[str]


class Runner(Base):
    """A runner host that relays agent comms; re-enrolment bumps ``enrollment_epoch``."""

    __tablename__ = "runners"
    __table_args__ = (
        UniqueConstraint("handle"),
        CheckConstraint("enrollment_epoch >= 0", name="enrollment_epoch_not_negative"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    handle: Mapped[str]
    enrollment_epoch: Mapped[int] = mapped_column(server_default=text("0"))
    enrolled_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = _created_at()


class ApiToken(Base):
    """A bearer token, stored only as the lowercase hex SHA-256 of the token.

    A token authenticates either a principal (kinds session, agent, app) or a runner
    (kind runner), never both; the CHECKs make any other combination unstorable.
    """

    __tablename__ = "api_tokens"
    __table_args__ = (
        UniqueConstraint("token_hash"),
        _one_of("kind", TOKEN_KINDS),
        # A raw token can never be stored by mistake: only a SHA-256 hex digest fits.
        CheckConstraint("token_hash ~ '^[0-9a-f]{64}$'", name="token_hash_is_sha256_hex"),
        CheckConstraint("num_nonnulls(principal_id, runner_id) = 1", name="one_holder"),
        CheckConstraint(
            "(kind = 'runner') = (runner_id IS NOT NULL)", name="runner_kind_iff_runner"
        ),
        Index("ix_api_tokens_principal_id", "principal_id"),
        Index("ix_api_tokens_runner_id", "runner_id"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    token_hash: Mapped[str]
    kind: Mapped[str]
    principal_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("principals.id", ondelete="CASCADE")
    )
    runner_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("runners.id", ondelete="CASCADE")
    )
    created_at: Mapped[datetime] = _created_at()
    revoked_at: Mapped[datetime | None]


class Space(Base):
    """A top-level container of channels; archiving it caps every level at read."""

    __tablename__ = "spaces"
    __table_args__ = (UniqueConstraint("name"),)

    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str]
    archived_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = _created_at()


class Channel(Base):
    """A channel of a space, with the agent switches of SPEC section 4.

    ``history_backfill_limit`` NULL means the configuration key
    ``channel.history_backfill_limit_default`` applies.
    """

    __tablename__ = "channels"
    __table_args__ = (
        UniqueConstraint("space_id", "name"),
        _one_of("kind", CHANNEL_KINDS),
        CheckConstraint(
            "history_backfill_limit IS NULL OR history_backfill_limit >= 0",
            name="history_backfill_limit_not_negative",
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id"))
    name: Mapped[str]
    kind: Mapped[str] = mapped_column(server_default=text("'regular'"))
    archived_at: Mapped[datetime | None]
    history_backfill_limit: Mapped[int | None]
    operator_agent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("principals.id"))
    allow_mentioned_agents: Mapped[bool] = mapped_column(server_default=text("false"))
    auto_thread: Mapped[bool] = mapped_column(server_default=text("false"))
    created_at: Mapped[datetime] = _created_at()


class ChannelMember(Base):
    """Membership of a principal in a channel (also the participants of a DM)."""

    __tablename__ = "channel_members"
    __table_args__ = (
        PrimaryKeyConstraint("channel_id", "principal_id"),
        Index("ix_channel_members_principal_id", "principal_id"),
    )

    channel_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id", ondelete="CASCADE"))


class Grant(Base):
    """A level (read, write, trigger, manage) given to a principal or group on a target.

    Exactly one subject and exactly one target are set; an expired grant stays stored
    and Rego ignores it.
    """

    __tablename__ = "grants"
    __table_args__ = (
        _one_of("level", GRANT_LEVELS),
        CheckConstraint(
            "num_nonnulls(subject_principal_id, subject_group_id) = 1", name="one_subject"
        ),
        CheckConstraint("num_nonnulls(target_space_id, target_channel_id) = 1", name="one_target"),
        Index("ix_grants_subject_principal_id", "subject_principal_id"),
        Index("ix_grants_subject_group_id", "subject_group_id"),
        Index("ix_grants_target_space_id", "target_space_id"),
        Index("ix_grants_target_channel_id", "target_channel_id"),
        # The same grant twice is a client error (409), not a second row.
        UniqueConstraint(
            "subject_principal_id",
            "subject_group_id",
            "target_space_id",
            "target_channel_id",
            "level",
            name="uq_grants_subject_target_level",
            postgresql_nulls_not_distinct=True,
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    subject_principal_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("principals.id", ondelete="CASCADE")
    )
    subject_group_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("groups.id", ondelete="CASCADE")
    )
    target_space_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("spaces.id", ondelete="CASCADE")
    )
    target_channel_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE")
    )
    level: Mapped[str]
    expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = _created_at()


class Thread(Base):
    """A sequence of messages in a channel: the channel's main thread or a side thread.

    ``channel_id`` is the current channel. After a move ``parent_message_id`` keeps
    pointing into the source channel, which is how the run context knows not to pull
    that channel's history. ``last_seq`` is kept by triggers on ``messages`` (see the
    migration ``0005_read_bounds``); nothing in Python writes it.
    """

    __tablename__ = "threads"
    __table_args__ = (
        _one_of("kind", THREAD_KINDS),
        CheckConstraint("kind <> 'main' OR parent_message_id IS NULL", name="main_has_no_parent"),
        CheckConstraint("last_seq >= 0", name="last_seq_not_negative"),
        Index("ix_threads_channel_id", "channel_id"),
        Index(
            "ux_threads_one_main_per_channel",
            "channel_id",
            unique=True,
            postgresql_where=text("kind = 'main'"),
        ),
        Index(
            "ux_threads_parent_message_id",
            "parent_message_id",
            unique=True,
            postgresql_where=text("parent_message_id IS NOT NULL"),
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    channel_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("channels.id"))
    kind: Mapped[str]
    # use_alter: threads and messages reference each other (messages.thread_id).
    parent_message_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("messages.id", use_alter=True)
    )
    operator_agent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("principals.id"))
    # The highest thread_seq of the thread's messages (0: none), raised by triggers on
    # messages (migration 0005_read_bounds): the anchor of a listing's first page and of
    # the next post, so neither aggregates over the thread.
    last_seq: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    created_at: Mapped[datetime] = _created_at()


class Message(Base):
    """A message in a thread, ordered by ``thread_seq`` (1, 2, 3, ... per thread).

    ``origin`` is set by the server only and decides trust before the author does.
    Deleting a message empties ``content_md`` and sets ``deleted_at`` (a tombstone);
    the CHECK keeps a tombstone from carrying content.
    """

    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("thread_id", "thread_seq"),
        # NULL client_request_ids stay distinct, so only idempotent posts are constrained.
        UniqueConstraint("author_principal_id", "client_request_id"),
        _one_of("origin", MESSAGE_ORIGINS),
        _one_of("kind", MESSAGE_KINDS),
        CheckConstraint("thread_seq >= 1", name="thread_seq_positive"),
        CheckConstraint("system_code IS NULL OR origin = 'system'", name="system_code_only_system"),
        CheckConstraint("deleted_at IS NULL OR content_md = ''", name="deleted_has_no_content"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    thread_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("threads.id"))
    thread_seq: Mapped[int] = mapped_column(BigInteger)
    author_principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    origin: Mapped[str]
    kind: Mapped[str] = mapped_column(server_default=text("'text'"))
    content_md: Mapped[str] = mapped_column(server_default=text("''"))
    reply_to_message_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("messages.id"))
    system_code: Mapped[str | None]
    client_request_id: Mapped[str | None]
    created_at: Mapped[datetime] = _created_at()
    deleted_at: Mapped[datetime | None]


class Attachment(Base):
    """A file attached to a message at ``position``; file contents live elsewhere."""

    __tablename__ = "attachments"
    __table_args__ = (
        # Also the index for "attachments of a message" (message_id is the leading column).
        UniqueConstraint("message_id", "position"),
        _one_of("scan_status", SCAN_STATUSES),
        CheckConstraint("position >= 0", name="position_not_negative"),
        CheckConstraint("size_bytes >= 0", name="size_bytes_not_negative"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    message_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"))
    position: Mapped[int]
    file_id: Mapped[uuid.UUID]
    original_name: Mapped[str]
    mime_type: Mapped[str]
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    scan_status: Mapped[str] = mapped_column(server_default=text("'pending'"))
    transcript: Mapped[str | None]


class AgentSession(Base):
    """A session of an agent in a thread; at most one per thread is current."""

    __tablename__ = "agent_sessions"
    __table_args__ = (
        Index(
            "ux_agent_sessions_current_per_thread",
            "thread_id",
            unique=True,
            postgresql_where=text("is_current"),
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    thread_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("threads.id"))
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    is_current: Mapped[bool]
    started: Mapped[bool] = mapped_column(server_default=text("false"))
    created_at: Mapped[datetime] = _created_at()


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
        _one_of("trigger_kind", RUN_TRIGGER_KINDS),
        _one_of("state", RUN_STATES),
        CheckConstraint(
            f"task_key IS NULL OR task_key ~ '^{TASK_KEY_PATTERN}$'", name="task_key_valid"
        ),
        Index("ix_runs_thread_id", "thread_id"),
        # "Earlier runs of this session", ordered: the session mode and context floor.
        Index("ix_runs_agent_session_id_queued_at", "agent_session_id", "queued_at"),
        Index(
            "ix_runs_active_agent_id",
            "agent_id",
            postgresql_where=text(f"state IN ({_sql_list(ACTIVE_RUN_STATES)})"),
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
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
        _one_of("state", FOLLOWUP_STATES),
        Index("ix_run_followups_run_id", "run_id"),
        Index("ix_run_followups_message_id", "message_id"),
        UniqueConstraint("run_id", "message_id", name="uq_run_followups_run_id_message_id"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    message_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"))
    state: Mapped[str] = mapped_column(server_default=text("'pending'"))
    created_at: Mapped[datetime] = _created_at()


class RunStep(Base):
    """A step payload of a run; refiltered when the run's privacy ceiling tightens."""

    __tablename__ = "run_steps"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[uuid.UUID] = _uuid_pk()
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    seq: Mapped[int]
    # Any JSON document; its shape is owned by the run-step use case, not the schema.
    payload: Mapped[Any] = mapped_column(JSONB)
    created_at: Mapped[datetime] = _created_at()


class ProviderPolicy(Base):
    """Privacy ceilings of one LLM provider: a row makes the provider known.

    A ceiling column holds an explicit level; NULL means the provider inherits the
    global default of that kind (policy data in ``policies/privacy/scale``). Levels are
    not constrained here: the scale lives in the policies, and a level the policies do
    not know is "unreadable" at the next attempt (fail closed).
    """

    __tablename__ = "provider_policies"
    __table_args__ = (_matches("provider_id", PROVIDER_ID_PATTERN),)

    provider_id: Mapped[str] = mapped_column(primary_key=True)
    audit_content_ceiling: Mapped[str | None]
    background_answer_ceiling: Mapped[str | None]


class TaskPolicy(Base):
    """Explicit privacy ceilings of one task (``runs.task_key``); NULL sets none."""

    __tablename__ = "task_policies"
    __table_args__ = (_matches("task_key", TASK_KEY_PATTERN),)

    task_key: Mapped[str] = mapped_column(primary_key=True)
    audit_content_ceiling: Mapped[str | None]
    background_answer_ceiling: Mapped[str | None]


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
        _one_of("kind", ATTEMPT_KINDS),
        _matches("attempt_id", ATTEMPT_ID_PATTERN),
        _matches("provider_id", PROVIDER_ID_PATTERN),
        CheckConstraint("position >= 1", name="position_positive"),
    )

    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    attempt_id: Mapped[str]
    position: Mapped[int]
    provider_id: Mapped[str]
    kind: Mapped[str]
    created_at: Mapped[datetime] = _created_at()


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
        _one_of("state", BINDING_STATES),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    runner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runners.id", ondelete="CASCADE"))
    enrollment_epoch: Mapped[int]
    container_name: Mapped[str]
    session_id: Mapped[str | None]
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    state: Mapped[str]
    created_at: Mapped[datetime] = _created_at()
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))


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
        _one_of("acting_for", ACTING_FOR_MODES),
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
