"""Who can act: principals, their groups and permissions, runners, API tokens."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    PrimaryKeyConstraint,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from repositories.models.base import (
    ACTING_FOR_VALUES,
    PRINCIPAL_KINDS,
    PRINCIPAL_STATUSES,
    TOKEN_KINDS,
    Base,
    Membership,
    cascade_to,
    created_at_column,
    one_of,
    uuid_pk,
)

__all__ = ["ApiToken", "Group", "GroupMember", "Principal", "PrincipalPermission", "Runner"]


class Principal(Base):
    """A user, agent or app that can act; identified by a unique ``handle``.

    Email is stored only for users and must never reach an agent-facing response.
    Agents carry the user who owns them and the channel they were minted with.
    """

    __tablename__ = "principals"
    __table_args__ = (
        one_of("kind", PRINCIPAL_KINDS),
        one_of("status", PRINCIPAL_STATUSES),
        CheckConstraint("email IS NULL OR kind = 'user'", name="email_only_users"),
        CheckConstraint("NOT is_owner OR kind = 'user'", name="owner_only_users"),
        CheckConstraint("owner_user_id IS NULL OR kind = 'agent'", name="owner_user_only_agents"),
        CheckConstraint(
            "home_channel_id IS NULL OR kind = 'agent'", name="home_channel_only_agents"
        ),
        one_of("acting_for", ACTING_FOR_VALUES),
        CheckConstraint("acting_for = 'optional' OR kind = 'agent'", name="acting_for_only_agents"),
        UniqueConstraint("handle"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
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
    created_at: Mapped[datetime] = created_at_column()
    # Agents only: "required" means the agent may post and list only for the requester
    # of a run bound to its session (issue 21).
    acting_for: Mapped[str] = mapped_column(server_default=text("'optional'"))


class Group(Base):
    """A named set of principals that grants can target as one subject."""

    __tablename__ = "groups"
    __table_args__ = (UniqueConstraint("key"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    key: Mapped[str]
    created_at: Mapped[datetime] = created_at_column()


class GroupMember(Membership, Base):
    """Membership of a principal in a group."""

    __tablename__ = "group_members"

    group_id: Mapped[uuid.UUID] = cascade_to("groups", primary_key=True)


class PrincipalPermission(Base):
    """A permission string (for example ``matters:read``) held by a principal."""

    __tablename__ = "principal_permissions"
    __table_args__ = (PrimaryKeyConstraint("principal_id", "permission"),)

    principal_id: Mapped[uuid.UUID] = cascade_to("principals")
    permission: Mapped[str]


class Runner(Base):
    """A runner host that relays agent comms; re-enrolment bumps ``enrollment_epoch``."""

    __tablename__ = "runners"
    __table_args__ = (
        UniqueConstraint("handle"),
        CheckConstraint("enrollment_epoch >= 0", name="enrollment_epoch_not_negative"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    handle: Mapped[str]
    enrollment_epoch: Mapped[int] = mapped_column(server_default=text("0"))
    enrolled_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = created_at_column()


class ApiToken(Base):
    """A bearer token, stored only as the lowercase hex SHA-256 of the token.

    A token authenticates either a principal (kinds session, agent, app) or a runner
    (kind runner), never both; the CHECKs make any other combination unstorable.
    """

    __tablename__ = "api_tokens"
    __table_args__ = (
        UniqueConstraint("token_hash"),
        one_of("kind", TOKEN_KINDS),
        # A raw token can never be stored by mistake: only a SHA-256 hex digest fits.
        CheckConstraint("token_hash ~ '^[0-9a-f]{64}$'", name="token_hash_is_sha256_hex"),
        CheckConstraint("num_nonnulls(principal_id, runner_id) = 1", name="one_holder"),
        CheckConstraint(
            "(kind = 'runner') = (runner_id IS NOT NULL)", name="runner_kind_iff_runner"
        ),
        Index("ix_api_tokens_principal_id", "principal_id"),
        Index("ix_api_tokens_runner_id", "runner_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    token_hash: Mapped[str]
    kind: Mapped[str]
    principal_id: Mapped[uuid.UUID | None] = cascade_to("principals")
    runner_id: Mapped[uuid.UUID | None] = cascade_to("runners")
    created_at: Mapped[datetime] = created_at_column()
    revoked_at: Mapped[datetime | None]
