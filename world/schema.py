"""Typed models of a world fixture file, and the JSON Schema generated from them.

:data:`WORLD_SCHEMA` (Draft 2020-12) is ``World.model_json_schema()`` with ``null``
left out (null means absent: the loader drops null values before validating) and the
``$defs`` named in snake case (``ceiling_level``). Every model forbids unknown keys, so
a typo fails loudly. Pattern types carry a ``description`` that ends the sentence
"must be ..."; the loader reports that sentence instead of the validator's message,
which would quote the value. Enumerations are the database's own tuples.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, GetPydanticSchema, StringConstraints
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import CoreSchema, core_schema
from typing_extensions import TypeAliasType

from app.domain.privacy import CEILING_LEVELS, PROVIDER_ID_PATTERN, TASK_KEY_PATTERN
from repositories.models import (
    ACTING_FOR_VALUES,
    CHANNEL_KINDS,
    FOLLOWUP_STATES,
    GRANT_LEVELS,
    MESSAGE_KINDS,
    MESSAGE_ORIGINS,
    PRINCIPAL_STATUSES,
    RUN_STATES,
    RUN_TRIGGER_KINDS,
    SCAN_STATUSES,
)

__all__ = ["MAX_ATTACHMENTS", "MAX_PERMISSIONS", "NAME_PATTERN", "WORLD_SCHEMA", "World"]

# Handles, keys and names: no "/", ":" or "#", because those separate the parts of
# references such as "channel:support/general" and mapping keys such as
# "support/general#main".
NAME_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
# The contract's bounds of what a world puts into answers: a message's attachments
# (maxItems of Message.attachments) and a principal's permissions (maxItems of
# SessionResolveResponse.permissions). The world file is the only writer of both.
MAX_ATTACHMENTS: Final = 100
MAX_PERMISSIONS: Final = 200
_CHANNEL_PATH: Final = rf"{NAME_PATTERN}/{NAME_PATTERN}"
_UUID: Final = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_DATETIME: Final = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def _full(pattern: str) -> StringConstraints:
    """The whole string matches ``pattern`` (JSON Schema patterns match anywhere)."""
    return StringConstraints(pattern=f"^(?:{pattern})$")


def _one_of(values: tuple[str, ...]) -> GetPydanticSchema:
    """One of ``values``: a JSON Schema ``enum`` of the database's values."""
    return GetPydanticSchema(lambda _source, _handler: core_schema.literal_schema(list(values)))


def _unique(max_items: int | None = None) -> Any:
    """A list without duplicates (``uniqueItems``; pydantic has no such constraint)."""
    return Field(max_length=max_items, json_schema_extra={"uniqueItems": True})


_NAME_WORDS: Final = "a name of letters, digits, '.', '_' or '-'"
_CHANNEL_WORDS: Final = 'a channel path "space/channel"'
_THREAD_WORDS: Final = 'a thread key or a channel path "space/channel" (its main thread)'
_TARGET_WORDS: Final = '"space:<space>" or "channel:<space>/<channel>"'
_RUNNER_NAME_WORDS: Final = "1 to 128 letters, digits, '.', '_', ':' or '-'"

# Shared string types; each becomes one of the schema's $defs.
Uuid = TypeAliasType("Uuid", Annotated[str, _full(_UUID), Field(description="a UUID")])
Name = TypeAliasType("Name", Annotated[str, _full(NAME_PATTERN), Field(description=_NAME_WORDS)])
ChannelPath = TypeAliasType(
    "ChannelPath", Annotated[str, _full(_CHANNEL_PATH), Field(description=_CHANNEL_WORDS)]
)
ThreadRef = TypeAliasType(
    "ThreadRef",
    Annotated[str, _full(rf"{NAME_PATTERN}|{_CHANNEL_PATH}"), Field(description=_THREAD_WORDS)],
)
Subject = TypeAliasType(
    "Subject",
    Annotated[
        str,
        _full(rf"(?:group:)?{NAME_PATTERN}"),
        Field(description='a principal handle or "group:<key>"'),
    ],
)
Target = TypeAliasType(
    "Target",
    Annotated[
        str,
        _full(rf"space:{NAME_PATTERN}|channel:{_CHANNEL_PATH}"),
        Field(description=_TARGET_WORDS),
    ],
)
Datetime = TypeAliasType(
    "Datetime",
    Annotated[str, _full(_DATETIME), Field(description="an RFC 3339 date-time with a time zone")],
)
Email = TypeAliasType(
    "Email",
    Annotated[str, _full(r"[^@\s]+@[^@\s]+\.[^@\s]+"), Field(description="an e-mail address")],
)
Permission = TypeAliasType(
    "Permission",
    Annotated[
        str, _full(r"[A-Za-z0-9_.:-]+"), Field(description="a permission such as matters:read")
    ],
)
Token = TypeAliasType("Token", Annotated[str, Field(min_length=1)])
RunnerName = TypeAliasType(
    "RunnerName",
    Annotated[str, _full(r"[A-Za-z0-9._:-]{1,128}"), Field(description=_RUNNER_NAME_WORDS)],
)
ProviderId = TypeAliasType(
    "ProviderId",
    Annotated[
        str,
        _full(PROVIDER_ID_PATTERN),
        Field(description="a provider id (no '/', ':' or spaces)"),
    ],
)
TaskKey = TypeAliasType(
    "TaskKey",
    Annotated[
        str,
        _full(TASK_KEY_PATTERN),
        Field(description="a task key of lower-case letters and digits"),
    ],
)
CeilingLevel = TypeAliasType("CeilingLevel", Annotated[str, _one_of(CEILING_LEVELS)])

NonEmpty = Annotated[str, Field(min_length=1)]
# Bounds of the PostgreSQL column types, so an oversized number fails validation with a
# path instead of failing the INSERT.
Int4 = Annotated[int, Field(ge=0, le=2**31 - 1)]
Int8 = Annotated[int, Field(ge=0, le=2**63 - 1)]
Permissions = Annotated[list[Permission], _unique(MAX_PERMISSIONS)]
PrincipalStatus = Annotated[str, _one_of(PRINCIPAL_STATUSES)]


class _Strict(BaseModel):
    """Unknown keys are errors (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


class _Row(_Strict):
    """A row of the database; ``id`` fixes its UUID (without it the loader makes one).

    These bases only share fields: a base's fields come first in ``properties``, where
    every model had them, so the schema is the one the models spelled out in full."""

    id: Uuid | None = None


class _Keyed(_Row):
    """A row that other entries of the file name by its required ``key``."""

    key: Name


class _MaybeKeyed(_Row):
    """A row that other entries may name by ``key``; without one it cannot be named."""

    key: Name | None = None


class _AgentInThread(_Keyed):
    """What sessions and runs share: an agent in a thread."""

    thread: ThreadRef
    agent: Name


class _Principal(_Row):
    """What people, agents and apps share."""

    handle: Name
    display_name: NonEmpty | None = None
    status: PrincipalStatus | None = None
    token: Token | None = None
    permissions: Permissions | None = None


class Person(_Principal):
    """A person (principal kind user); ``owner: true`` marks the instance owner."""

    email: Email | None = None
    owner: bool | None = None


class Agent(_Principal):
    """An agent; ``owner`` names the person who owns it."""

    owner: Name | None = None
    home_channel: ChannelPath | None = None
    # required: the agent posts and lists only for a bound run's requester.
    acting_for: Annotated[str, _one_of(ACTING_FOR_VALUES)] | None = None


class App(_Principal):
    """An app (an integration that posts as itself)."""


class Workspace(_MaybeKeyed):
    """A workspace of the runner's current enrolment: its container acts as ``agent``;
    with ``session_id`` the container's session is bound (relayable)."""

    agent: Name
    container_name: RunnerName
    session_id: RunnerName | None = None


class Runner(_Row):
    """A runner (the host of agent workspaces) and its current enrolment."""

    handle: Name
    token: Token | None = None
    enrollment_epoch: Int4 | None = None
    enrolled_at: Datetime | None = None
    workspaces: list[Workspace] | None = None


class Group(_Keyed):
    """A group of principals, a grant's subject as ``group:<key>``."""

    members: Annotated[list[Name], _unique()] | None = None


class Attachment(_Row):
    """A file attached to a message (metadata and scan result, no bytes)."""

    file_id: Uuid | None = None
    original_name: NonEmpty
    mime_type: NonEmpty
    size_bytes: Int8
    scan_status: Annotated[str, _one_of(SCAN_STATUSES)]
    transcript: str | None = None


class Message(_MaybeKeyed):
    """A message; without ``at`` it is stamped one second after the previous one."""

    author: Name
    origin: Annotated[str, _one_of(MESSAGE_ORIGINS)] | None = None
    kind: Annotated[str, _one_of(MESSAGE_KINDS)] | None = None
    content: str | None = None
    reply_to: Name | None = None
    deleted: bool | None = None
    at: Datetime | None = None
    system_code: NonEmpty | None = None
    client_request_id: NonEmpty | None = None
    attachments: Annotated[list[Attachment], Field(max_length=MAX_ATTACHMENTS)] | None = None


class Channel(_Row):
    """A channel of a space; its messages form the channel's main thread."""

    name: Name
    kind: Annotated[str, _one_of(CHANNEL_KINDS)] | None = None
    operator: Name | None = None
    history_backfill_limit: Int4 | None = None
    allow_mentioned_agents: bool | None = None
    auto_thread: bool | None = None
    members: Annotated[list[Name], _unique()] | None = None
    archived: bool | None = None
    messages: list[Message] | None = None


class Space(_Row):
    """A space and its channels."""

    name: Name
    archived: bool | None = None
    channels: list[Channel] | None = None


class Grant(_MaybeKeyed):
    """A grant of ``level`` on a space or channel to a principal or group."""

    subject: Subject
    target: Target
    level: Annotated[str, _one_of(GRANT_LEVELS)]
    expires_at: Datetime | None = None


class Thread(_Keyed):
    """A thread of a channel, optionally started from a ``parent`` message."""

    channel: ChannelPath
    # "main" is missing on purpose: every channel gets its main thread automatically,
    # and a second one would violate the one-main index.
    kind: Annotated[str, _one_of(("thread", "forum_post"))] | None = None
    parent: Name | None = None
    operator: Name | None = None
    messages: list[Message] | None = None


class Session(_AgentInThread):
    """An agent's session in a thread (one current session per thread)."""

    started: bool | None = None
    current: bool | None = None


class Run(_AgentInThread):
    """A run of an agent in a thread, optionally in a session and with a trigger."""

    session: Name | None = None
    trigger: Name | None = None
    triggered_by: Name | None = None
    state: Annotated[str, _one_of(RUN_STATES)] | None = None
    trigger_kind: Annotated[str, _one_of(RUN_TRIGGER_KINDS)] | None = None
    queued_at: Datetime | None = None
    task_key: TaskKey | None = None


class Followup(_MaybeKeyed):
    """A message that arrived in a run's thread while the run was active."""

    run: Name
    message: Name
    state: Annotated[str, _one_of(FOLLOWUP_STATES)] | None = None


# Privacy policies (decisions.md S4). A world holds policies and a run's task, never a run's
# steps, answer or ceilings: those are written only by the retention guard.
class ProviderPolicy(_Strict):
    """The privacy ceilings of an LLM provider."""

    provider: ProviderId
    audit_content_ceiling: CeilingLevel | None = None
    background_answer_ceiling: CeilingLevel | None = None


class TaskPolicy(_Strict):
    """The privacy ceilings of a task (a run's ``task_key``)."""

    task: TaskKey
    audit_content_ceiling: CeilingLevel | None = None
    background_answer_ceiling: CeilingLevel | None = None


class World(_Strict):
    """World fixture"""

    people: list[Person] | None = None
    agents: list[Agent] | None = None
    apps: list[App] | None = None
    runners: list[Runner] | None = None
    groups: list[Group] | None = None
    spaces: list[Space] | None = None
    grants: list[Grant] | None = None
    threads: list[Thread] | None = None
    sessions: list[Session] | None = None
    runs: list[Run] | None = None
    followups: list[Followup] | None = None
    provider_policies: list[ProviderPolicy] | None = None
    task_policies: list[TaskPolicy] | None = None


class _WorldSchema(GenerateJsonSchema):
    """The schema of a document whose nulls were dropped, with snake-case ``$defs``."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: CoreSchema) -> bool:
        return False

    def normalize_name(self, name: str) -> str:
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", super().normalize_name(name)).lower()


WORLD_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:agent-authz:world-fixture",
    **World.model_json_schema(schema_generator=_WorldSchema),
}
