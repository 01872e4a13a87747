"""Where messages live: spaces, channels and their members, grants, threads, messages
and attachments."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from repositories.models.base import (
    CHANNEL_KINDS,
    GRANT_LEVELS,
    MESSAGE_KINDS,
    MESSAGE_ORIGINS,
    SCAN_STATUSES,
    THREAD_KINDS,
    Base,
    Membership,
    cascade_to,
    created_at_column,
    one_of,
    unique_where,
    uuid_pk,
)

__all__ = ["Attachment", "Channel", "ChannelMember", "Grant", "Message", "Space", "Thread"]


class Space(Base):
    """A top-level container of channels; archiving it caps every level at read."""

    __tablename__ = "spaces"
    __table_args__ = (UniqueConstraint("name"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    name: Mapped[str]
    archived_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = created_at_column()


class Channel(Base):
    """A channel of a space, with the agent switches of SPEC section 4.

    ``history_backfill_limit`` NULL means the configuration key
    ``channel.history_backfill_limit_default`` applies.
    """

    __tablename__ = "channels"
    __table_args__ = (
        UniqueConstraint("space_id", "name"),
        one_of("kind", CHANNEL_KINDS),
        CheckConstraint(
            "history_backfill_limit IS NULL OR history_backfill_limit >= 0",
            name="history_backfill_limit_not_negative",
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id"))
    name: Mapped[str]
    kind: Mapped[str] = mapped_column(server_default=text("'regular'"))
    archived_at: Mapped[datetime | None]
    history_backfill_limit: Mapped[int | None]
    operator_agent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("principals.id"))
    allow_mentioned_agents: Mapped[bool] = mapped_column(server_default=text("false"))
    auto_thread: Mapped[bool] = mapped_column(server_default=text("false"))
    created_at: Mapped[datetime] = created_at_column()


class ChannelMember(Membership, Base):
    """Membership of a principal in a channel (also the participants of a DM)."""

    __tablename__ = "channel_members"

    channel_id: Mapped[uuid.UUID] = cascade_to("channels", primary_key=True)


class Grant(Base):
    """A level (read, write, trigger, manage) given to a principal or group on a target.

    Exactly one subject and exactly one target are set; an expired grant stays stored
    and Rego ignores it.
    """

    __tablename__ = "grants"
    __table_args__ = (
        one_of("level", GRANT_LEVELS),
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

    id: Mapped[uuid.UUID] = uuid_pk()
    subject_principal_id: Mapped[uuid.UUID | None] = cascade_to("principals")
    subject_group_id: Mapped[uuid.UUID | None] = cascade_to("groups")
    target_space_id: Mapped[uuid.UUID | None] = cascade_to("spaces")
    target_channel_id: Mapped[uuid.UUID | None] = cascade_to("channels")
    level: Mapped[str]
    expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = created_at_column()


class Thread(Base):
    """A sequence of messages in a channel: the channel's main thread or a side thread.

    ``channel_id`` is the current channel. After a move ``parent_message_id`` keeps
    pointing into the source channel, which is how the run context knows not to pull
    that channel's history. ``last_seq`` is kept by triggers on ``messages`` (see the
    migration ``0005_read_bounds``); nothing in Python writes it.
    """

    __tablename__ = "threads"
    __table_args__ = (
        one_of("kind", THREAD_KINDS),
        CheckConstraint("kind <> 'main' OR parent_message_id IS NULL", name="main_has_no_parent"),
        CheckConstraint("last_seq >= 0", name="last_seq_not_negative"),
        Index("ix_threads_channel_id", "channel_id"),
        unique_where("ux_threads_one_main_per_channel", "channel_id", "kind = 'main'"),
        unique_where(
            "ux_threads_parent_message_id", "parent_message_id", "parent_message_id IS NOT NULL"
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
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
    created_at: Mapped[datetime] = created_at_column()


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
        one_of("origin", MESSAGE_ORIGINS),
        one_of("kind", MESSAGE_KINDS),
        CheckConstraint("thread_seq >= 1", name="thread_seq_positive"),
        CheckConstraint("system_code IS NULL OR origin = 'system'", name="system_code_only_system"),
        CheckConstraint("deleted_at IS NULL OR content_md = ''", name="deleted_has_no_content"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    thread_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("threads.id"))
    thread_seq: Mapped[int] = mapped_column(BigInteger)
    author_principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("principals.id"))
    origin: Mapped[str]
    kind: Mapped[str] = mapped_column(server_default=text("'text'"))
    content_md: Mapped[str] = mapped_column(server_default=text("''"))
    reply_to_message_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("messages.id"))
    system_code: Mapped[str | None]
    client_request_id: Mapped[str | None]
    created_at: Mapped[datetime] = created_at_column()
    deleted_at: Mapped[datetime | None]


class Attachment(Base):
    """A file attached to a message at ``position``; file contents live elsewhere."""

    __tablename__ = "attachments"
    __table_args__ = (
        # Also the index for "attachments of a message" (message_id is the leading column).
        UniqueConstraint("message_id", "position"),
        one_of("scan_status", SCAN_STATUSES),
        CheckConstraint("position >= 0", name="position_not_negative"),
        CheckConstraint("size_bytes >= 0", name="size_bytes_not_negative"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    message_id: Mapped[uuid.UUID] = cascade_to("messages")
    position: Mapped[int]
    file_id: Mapped[uuid.UUID]
    original_name: Mapped[str]
    mime_type: Mapped[str]
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    scan_status: Mapped[str] = mapped_column(server_default=text("'pending'"))
    transcript: Mapped[str | None]
