"""SQLAlchemy 2 models of the service's PostgreSQL schema (SPEC section 4).

The tables are the facts the app gathers for OPA; no table encodes a permission rule.
One module per area: :mod:`~repositories.models.base` (the declarative base, the
conventions and the enumerations), ``identities``, ``conversations``, ``runs``,
``privacy`` and ``audit``. Every name is importable from here, which also registers
every table on ``Base.metadata`` (Alembic's ``env.py`` and the world loader use it).

The migrations ``repositories/migrations/versions/`` create exactly this schema (0001
the initial tables, 0003 the privacy columns and tables, 0004 the policy revision of
audit rows, 0005 the threads' last position, 0007 acting-for); change both together.
"""

from __future__ import annotations

from app.domain.privacy import ATTEMPT_KINDS
from repositories.models.audit import AuditLog
from repositories.models.base import (
    ACTING_FOR_MODES,
    ACTING_FOR_VALUES,
    ACTIVE_RUN_STATES,
    BINDING_STATES,
    CHANNEL_KINDS,
    FOLLOWUP_STATES,
    GRANT_LEVELS,
    MESSAGE_KINDS,
    MESSAGE_ORIGINS,
    NAMING_CONVENTION,
    PRINCIPAL_KINDS,
    PRINCIPAL_STATUSES,
    RUN_STATES,
    RUN_TRIGGER_KINDS,
    SCAN_STATUSES,
    THREAD_KINDS,
    TOKEN_KINDS,
    Base,
)
from repositories.models.conversations import (
    Attachment,
    Channel,
    ChannelMember,
    Grant,
    Message,
    Space,
    Thread,
)
from repositories.models.identities import (
    ApiToken,
    Group,
    GroupMember,
    Principal,
    PrincipalPermission,
    Runner,
)
from repositories.models.privacy import ProviderPolicy, RunProviderAttempt, TaskPolicy
from repositories.models.runs import AgentSession, Run, RunFollowup, RunStep, SessionBinding

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
