"""JSON Schema (Draft 2020-12) of a world fixture file, for its shape only.

:mod:`app.world` validates a parsed world against :data:`WORLD_SCHEMA` first, then
checks references (who is ``author: bob``?) itself. Every object forbids unknown keys
(``additionalProperties: false``) so a typo fails loudly instead of being ignored.

Patterns live in ``$defs`` whose ``description`` reads as the end of the sentence
"must be ..."; the loader turns a schema error into that sentence instead of using the
validator's own message, which would quote the offending value (possibly message
content). Enumerations come from :mod:`repositories.models`, so the fixture accepts
exactly what the database accepts.
"""

from __future__ import annotations

from typing import Any, Final

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

__all__ = ["MAX_ATTACHMENTS", "MAX_PERMISSIONS", "NAME_PATTERN", "WORLD_SCHEMA"]

# Handles, keys and names: no "/", ":" or "#", because those separate the parts of
# references such as "channel:support/general" and mapping keys such as
# "support/general#main".
NAME_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
# The contract's bounds of what a world puts into answers: a message's attachments
# (maxItems of Message.attachments) and a principal's permissions (maxItems of
# SessionResolveResponse.permissions). The world file is the only writer of both.
MAX_ATTACHMENTS: Final = 100
MAX_PERMISSIONS: Final = 200
_CHANNEL_PATH = rf"{NAME_PATTERN}/{NAME_PATTERN}"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _object(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": properties,
    }


def _list_of(
    item: dict[str, Any], *, unique: bool = False, max_items: int | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": item}
    if unique:
        schema["uniqueItems"] = True
    if max_items is not None:
        schema["maxItems"] = max_items
    return schema


def _enum(values: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}


def _pattern(pattern: str, description: str) -> dict[str, Any]:
    return {"type": "string", "pattern": f"^(?:{pattern})$", "description": description}


_NON_EMPTY = {"type": "string", "minLength": 1}
# Bounds of the PostgreSQL column types, so an oversized number fails validation with a
# path instead of failing the INSERT.
_INT4 = {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
_INT8 = {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
_BOOL = {"type": "boolean"}

_MESSAGE = _object(
    ["author"],
    {
        "id": _ref("uuid"),
        "key": _ref("name"),
        "author": _ref("name"),
        "origin": _enum(MESSAGE_ORIGINS),
        "kind": _enum(MESSAGE_KINDS),
        "content": {"type": "string"},
        "reply_to": _ref("name"),
        "deleted": _BOOL,
        "at": _ref("datetime"),
        "system_code": _NON_EMPTY,
        "client_request_id": _NON_EMPTY,
        "attachments": _list_of(_ref("attachment"), max_items=MAX_ATTACHMENTS),
    },
)

WORLD_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:agent-authz:world-fixture",
    "title": "World fixture",
    **_object(
        [],
        {
            "people": _list_of(_ref("person")),
            "agents": _list_of(_ref("agent")),
            "apps": _list_of(_ref("app")),
            "runners": _list_of(_ref("runner")),
            "groups": _list_of(_ref("group")),
            "spaces": _list_of(_ref("space")),
            "grants": _list_of(_ref("grant")),
            "threads": _list_of(_ref("thread")),
            "sessions": _list_of(_ref("session")),
            "runs": _list_of(_ref("run")),
            "followups": _list_of(_ref("followup")),
            "provider_policies": _list_of(_ref("provider_policy")),
            "task_policies": _list_of(_ref("task_policy")),
        },
    ),
    "$defs": {
        "uuid": _pattern(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            "a UUID",
        ),
        "name": _pattern(NAME_PATTERN, "a name of letters, digits, '.', '_' or '-'"),
        "channel_path": _pattern(_CHANNEL_PATH, 'a channel path "space/channel"'),
        "thread_ref": _pattern(
            rf"{NAME_PATTERN}|{_CHANNEL_PATH}",
            'a thread key or a channel path "space/channel" (its main thread)',
        ),
        "subject": _pattern(rf"(?:group:)?{NAME_PATTERN}", 'a principal handle or "group:<key>"'),
        "target": _pattern(
            rf"space:{NAME_PATTERN}|channel:{_CHANNEL_PATH}",
            '"space:<space>" or "channel:<space>/<channel>"',
        ),
        "datetime": _pattern(
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
            r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})",
            "an RFC 3339 date-time with a time zone",
        ),
        "email": _pattern(r"[^@\s]+@[^@\s]+\.[^@\s]+", "an e-mail address"),
        "permission": _pattern(r"[A-Za-z0-9_.:-]+", "a permission such as matters:read"),
        "token": _NON_EMPTY,
        "runner_name": _pattern(
            r"[A-Za-z0-9._:-]{1,128}", "1 to 128 letters, digits, '.', '_', ':' or '-'"
        ),
        "person": _object(
            ["handle"],
            {
                "id": _ref("uuid"),
                "handle": _ref("name"),
                "display_name": _NON_EMPTY,
                "email": _ref("email"),
                "status": _enum(PRINCIPAL_STATUSES),
                "owner": _BOOL,
                "token": _ref("token"),
                "permissions": _list_of(_ref("permission"), unique=True, max_items=MAX_PERMISSIONS),
            },
        ),
        "agent": _object(
            ["handle"],
            {
                "id": _ref("uuid"),
                "handle": _ref("name"),
                "display_name": _NON_EMPTY,
                "owner": _ref("name"),
                "home_channel": _ref("channel_path"),
                # required: the agent posts and lists only for a bound run's requester.
                "acting_for": _enum(ACTING_FOR_VALUES),
                "status": _enum(PRINCIPAL_STATUSES),
                "token": _ref("token"),
                "permissions": _list_of(_ref("permission"), unique=True, max_items=MAX_PERMISSIONS),
            },
        ),
        "app": _object(
            ["handle"],
            {
                "id": _ref("uuid"),
                "handle": _ref("name"),
                "display_name": _NON_EMPTY,
                "status": _enum(PRINCIPAL_STATUSES),
                "token": _ref("token"),
                "permissions": _list_of(_ref("permission"), unique=True, max_items=MAX_PERMISSIONS),
            },
        ),
        "runner": _object(
            ["handle"],
            {
                "id": _ref("uuid"),
                "handle": _ref("name"),
                "token": _ref("token"),
                "enrollment_epoch": _INT4,
                "enrolled_at": _ref("datetime"),
                "workspaces": _list_of(_ref("workspace")),
            },
        ),
        # A workspace of the runner's current enrolment: its container acts as
        # ``agent``; with ``session_id`` the container's session is bound (relayable).
        "workspace": _object(
            ["agent", "container_name"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "agent": _ref("name"),
                "container_name": _ref("runner_name"),
                "session_id": _ref("runner_name"),
            },
        ),
        "group": _object(
            ["key"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "members": _list_of(_ref("name"), unique=True),
            },
        ),
        "space": _object(
            ["name"],
            {
                "id": _ref("uuid"),
                "name": _ref("name"),
                "archived": _BOOL,
                "channels": _list_of(_ref("channel")),
            },
        ),
        "channel": _object(
            ["name"],
            {
                "id": _ref("uuid"),
                "name": _ref("name"),
                "kind": _enum(CHANNEL_KINDS),
                "operator": _ref("name"),
                "history_backfill_limit": _INT4,
                "allow_mentioned_agents": _BOOL,
                "auto_thread": _BOOL,
                "members": _list_of(_ref("name"), unique=True),
                "archived": _BOOL,
                "messages": _list_of(_ref("message")),
            },
        ),
        "message": _MESSAGE,
        "attachment": _object(
            ["original_name", "mime_type", "size_bytes", "scan_status"],
            {
                "id": _ref("uuid"),
                "file_id": _ref("uuid"),
                "original_name": _NON_EMPTY,
                "mime_type": _NON_EMPTY,
                "size_bytes": _INT8,
                "scan_status": _enum(SCAN_STATUSES),
                "transcript": {"type": "string"},
            },
        ),
        "grant": _object(
            ["subject", "target", "level"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "subject": _ref("subject"),
                "target": _ref("target"),
                "level": _enum(GRANT_LEVELS),
                "expires_at": _ref("datetime"),
            },
        ),
        "thread": _object(
            ["key", "channel"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "channel": _ref("channel_path"),
                # "main" is missing on purpose: every channel gets its main thread
                # automatically, and a second one would violate the one-main index.
                "kind": _enum(("thread", "forum_post")),
                "parent": _ref("name"),
                "operator": _ref("name"),
                "messages": _list_of(_ref("message")),
            },
        ),
        "session": _object(
            ["key", "thread", "agent"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "thread": _ref("thread_ref"),
                "agent": _ref("name"),
                "started": _BOOL,
                "current": _BOOL,
            },
        ),
        "run": _object(
            ["key", "thread", "agent"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "thread": _ref("thread_ref"),
                "agent": _ref("name"),
                "session": _ref("name"),
                "trigger": _ref("name"),
                "triggered_by": _ref("name"),
                "state": _enum(RUN_STATES),
                "trigger_kind": _enum(RUN_TRIGGER_KINDS),
                "queued_at": _ref("datetime"),
                "task_key": _ref("task_key"),
            },
        ),
        "followup": _object(
            ["run", "message"],
            {
                "id": _ref("uuid"),
                "key": _ref("name"),
                "run": _ref("name"),
                "message": _ref("name"),
                "state": _enum(FOLLOWUP_STATES),
            },
        ),
        # Privacy policies (seed 004). A world holds policies and a run's task, never a
        # run's steps, answer or ceilings: those are written only by the retention guard.
        "provider_id": _pattern(PROVIDER_ID_PATTERN, "a provider id (no '/', ':' or spaces)"),
        "task_key": _pattern(TASK_KEY_PATTERN, "a task key of lower-case letters and digits"),
        "ceiling_level": _enum(CEILING_LEVELS),
        "provider_policy": _object(
            ["provider"],
            {
                "provider": _ref("provider_id"),
                "audit_content_ceiling": _ref("ceiling_level"),
                "background_answer_ceiling": _ref("ceiling_level"),
            },
        ),
        "task_policy": _object(
            ["task"],
            {
                "task": _ref("task_key"),
                "audit_content_ceiling": _ref("ceiling_level"),
                "background_answer_ceiling": _ref("ceiling_level"),
            },
        ),
    },
}
