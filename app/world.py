"""World fixtures: load a whole world (people, spaces, messages, runs, ...) from YAML.

Used by ``python -m app world load FILE``, by ``make run`` (``examples/demo-world.yaml``)
and by tests. The file format is documented in ``examples/demo-world.yaml`` and its
shape is fixed by :data:`app.world_schema.WORLD_SCHEMA`.

Loading happens in two strictly separated phases so an invalid file writes nothing:

1. :func:`validate_world` checks the shape against the JSON Schema, then every
   reference (``author: bob`` must name a principal, a run's session must belong to
   the run's thread, ...), and computes every row, id and timestamp. It touches no
   database, so it is unit-testable and cheap.
2. :func:`load_world` checks the plan against rows already in the database (a handle
   or token that exists), then inserts everything inside a savepoint of the caller's
   transaction; :func:`load_world_file` wraps that in one ``engine.begin()``.

Every failure is a :class:`WorldError` naming the offending path, such as
``spaces[0].channels[1].messages[2].author: unknown principal "bob"``. Messages name
handles and keys (identifiers) but never echo message content, display names or
tokens, and database errors are not chained because their text includes the SQL
parameters (content).

The returned mapping (also printed by the CLI) maps names to ids as strings:

* people, agents, apps and runners by handle; groups by key; spaces by name;
* channels by ``"space/channel"``, the main thread of a channel by
  ``"space/channel#main"``;
* messages, grants, threads, sessions, runs, follow-ups and runner workspaces by
  their ``key`` (for messages, grants, follow-ups and workspaces only when one is
  given).

All these names share one namespace, so a space may not be named like a handle.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import jsonschema_rs
import psycopg2
import yaml
from jsonschema import Draft202012Validator
from sqlalchemy import Connection, Table, bindparam, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from app.domain.privacy import is_provider_id, is_task_key
from app.tokens import hash_token
from app.world_schema import WORLD_SCHEMA
from repositories.engine import make_engine
from repositories.models import Base

__all__ = [
    "BASE_TIME",
    "WorldError",
    "WorldPlan",
    "analyze_tables",
    "load_world",
    "load_world_data",
    "load_world_file",
    "parse_world_yaml",
    "validate_world",
]

# Messages without an explicit ``at`` are stamped from this fixed instant onwards, one
# second apart in document order. A fixed past instant keeps fixtures deterministic
# and keeps every fixture message older than anything the running service writes.
BASE_TIME: Final = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
_STEP: Final = timedelta(seconds=1)

_ORIGIN_BY_KIND: Final = {"user": "human", "agent": "agent", "app": "app"}
_TOKEN_KIND_BY_PRINCIPAL_KIND: Final = {"user": "session", "agent": "agent", "app": "app"}
_KIND_WORDS: Final = {"user": "a person", "agent": "an agent", "app": "an app"}

_TYPE_WORDS: Final = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
}

_VALIDATOR: Final = Draft202012Validator(WORLD_SCHEMA)
# A compiled validator that only answers "valid or not", a thousand times faster than
# _VALIDATOR on a world of 100,000 messages (0.03 s against 25 s). It never decides
# alone: a document it rejects is checked again by _VALIDATOR, whose first error in
# document order is the one reported (and whose verdict stands where the two differ).
_FAST_VALIDATOR: Final = jsonschema_rs.validator_for(WORLD_SCHEMA)

# Tables with at least this many rows in a plan are written with COPY instead of
# multi-row INSERTs (100,000 messages: about 1 s instead of 15 s).
_COPY_THRESHOLD: Final = 1000

_INTEGRITY_KINDS: Final = {
    "23505": "unique violation",
    "23503": "foreign key violation",
    "23514": "check violation",
    "23502": "not-null violation",
}


class WorldError(Exception):
    """A world fixture is invalid or conflicts with the database; nothing was written.

    ``path`` names the offending place (``spaces[0].channels[1].name``, ``$`` for the
    whole document, ``FILE:LINE:COLUMN`` for YAML syntax); ``message`` says what is
    wrong without quoting message content, display names or tokens.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True)
class _Probe:
    """A value the plan inserts into a unique column, checked against existing rows."""

    table: str
    column: str
    value: Any
    path: str
    what: str


@dataclass(frozen=True)
class WorldPlan:
    """Everything :func:`load_world` will write, computed by :func:`validate_world`.

    ``mapping`` is the name-to-id mapping that loading returns. ``inserts`` lists rows
    per table in foreign-key order; ``updates`` closes the reference cycles (home
    channel, thread parent, reply-to) after all rows exist.
    """

    mapping: dict[str, str]
    inserts: tuple[tuple[str, tuple[dict[str, Any], ...]], ...]
    updates: tuple[tuple[str, str, tuple[tuple[uuid.UUID, uuid.UUID], ...]], ...]
    probes: tuple[_Probe, ...] = field(repr=False)


@dataclass(frozen=True)
class _Principal:
    id: uuid.UUID
    kind: str


@dataclass(frozen=True)
class _Message:
    id: uuid.UUID
    thread_id: uuid.UUID


@dataclass(frozen=True)
class _Thread:
    id: uuid.UUID
    # Messages listed under this thread, by key: a parent may not lie inside.
    message_keys: frozenset[str]
    parent: str | None


@dataclass(frozen=True)
class _Session:
    id: uuid.UUID
    thread_id: uuid.UUID
    agent_id: uuid.UUID


@dataclass(frozen=True)
class _Run:
    id: uuid.UUID
    thread_id: uuid.UUID


# --------------------------------------------------------------------------- parsing


class _WorldLoader(yaml.SafeLoader):
    """Safe YAML loader that rejects duplicate keys and keeps timestamps as strings.

    PyYAML silently keeps the last of two equal keys, which would hide a mistake in a
    fixture; and it turns unquoted timestamps into naive ``datetime`` objects, losing
    the time zone the schema requires.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[Hashable] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f'duplicate key "{key}"',
                    key_node.start_mark,
                )
            if isinstance(key, Hashable):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_WorldLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def parse_world_yaml(text: str, source: str = "<world>") -> dict[str, Any]:
    """Parse the YAML text of a world fixture into a mapping.

    ``source`` names the text in errors (usually the file path).

    Raises:
        WorldError: the text is not valid YAML (path ``SOURCE:LINE:COLUMN``; the
            message gives the parser's reason but no excerpt of the text), contains a
            duplicate key, or is not a mapping at the top level.
    """
    try:
        document = yaml.load(text, Loader=_WorldLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        raise WorldError(where, f"invalid YAML: {exc.problem or 'syntax error'}") from None
    except yaml.YAMLError:
        raise WorldError(source, "invalid YAML") from None
    if not isinstance(document, dict):
        raise WorldError("$", "must be a mapping of sections such as people and spaces")
    return document


# ------------------------------------------------------------------------ validation


def _format_path(parts: Iterable[str | int]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "$"


def _join(path: str, *parts: str | int) -> str:
    base: list[str | int] = [] if path == "$" else [path]
    return _format_path([*base, *parts])


def _normalise(value: Any, path: list[str | int]) -> Any:
    """Drop null values (null means absent) and turn Python scalars into JSON ones.

    Programmatic callers may pass ``datetime`` or ``UUID`` objects; they become the
    strings the schema describes (a naive ``datetime`` then fails the time zone rule).
    """
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise WorldError(_format_path([*path, str(key)]), "keys must be strings")
            if item is not None:
                result[key] = _normalise(item, [*path, key])
        return result
    if isinstance(value, list | tuple):
        return [_normalise(item, [*path, index]) for index, item in enumerate(value)]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str) and "\x00" in value:
        # PostgreSQL text cannot hold NUL; fail here with a path, not in the driver.
        raise WorldError(_format_path(path), "must not contain NUL characters")
    return value


def _path_sort_key(error: Any) -> tuple[tuple[int, str], ...]:
    return tuple(
        (0, f"{part:09d}") if isinstance(part, int) else (1, str(part))
        for part in error.absolute_path
    )


def _schema_error(error: Any) -> WorldError:
    """Turn a jsonschema error into a WorldError without quoting the instance."""
    parts: list[str | int] = list(error.absolute_path)
    validator = str(error.validator)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        unknown = sorted(key for key in error.instance if key not in allowed)
        return WorldError(
            _format_path([*parts, unknown[0]]), f"unknown key (allowed: {', '.join(allowed)})"
        )
    if validator == "required" and isinstance(error.instance, dict):
        missing = [key for key in error.validator_value if key not in error.instance]
        return WorldError(_format_path([*parts, missing[0]]), "is required")
    path = _format_path(parts)
    if validator == "type":
        return WorldError(path, f"must be {_TYPE_WORDS.get(str(error.validator_value), 'valid')}")
    if validator == "enum":
        return WorldError(path, f"must be one of: {', '.join(map(str, error.validator_value))}")
    if validator == "pattern":
        return WorldError(path, f"must be {schema.get('description', 'well-formed')}")
    if validator == "minimum":
        return WorldError(path, f"must be at least {error.validator_value}")
    if validator == "maximum":
        return WorldError(path, f"must be at most {error.validator_value}")
    if validator == "minLength":
        return WorldError(path, "must not be empty")
    if validator == "uniqueItems":
        return WorldError(path, "must not contain duplicates")
    return WorldError(path, f"is invalid ({validator})")


def _parse_time(value: str, path: str) -> datetime:
    try:
        # RFC 3339 allows lower-case "t" and "z"; fromisoformat does not.
        parsed = datetime.fromisoformat(value.upper())
    except ValueError:
        raise WorldError(path, "must be an RFC 3339 date-time with a time zone") from None
    if parsed.tzinfo is None:
        raise WorldError(path, "must be an RFC 3339 date-time with a time zone")
    return parsed


class _Planner:
    """Resolves references and builds rows; raises WorldError at the first problem.

    Pass one registers every name and id (so references may point forwards, for
    example a reply to a message of a later thread); pass two resolves references and
    builds the rows in insertion order.
    """

    def __init__(self, world: dict[str, Any]) -> None:
        self.world = world
        self.loaded_at = datetime.now(UTC)
        self.cursor = BASE_TIME
        # One flat namespace, because the returned mapping is flat.
        self.names: dict[str, str] = {}
        self.mapping: dict[str, str] = {}
        self.explicit_ids: dict[uuid.UUID, str] = {}
        self.tokens: dict[str, str] = {}
        self.probes: list[_Probe] = []
        self.principals: dict[str, _Principal] = {}
        self.runners: dict[str, uuid.UUID] = {}
        self.groups: dict[str, uuid.UUID] = {}
        self.spaces: dict[str, uuid.UUID] = {}
        self.channels: dict[str, uuid.UUID] = {}
        self.main_threads: dict[str, uuid.UUID] = {}
        self.threads: dict[str, _Thread] = {}
        self.messages: dict[str, _Message] = {}
        self.sessions: dict[str, _Session] = {}
        self.runs: dict[str, _Run] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {
            table.name: [] for table in Base.metadata.sorted_tables
        }
        self.home_channels: list[tuple[uuid.UUID, uuid.UUID]] = []
        self.parents: list[tuple[uuid.UUID, uuid.UUID]] = []
        self.replies: list[tuple[uuid.UUID, uuid.UUID]] = []
        # (author id, client_request_id) -> path: unique per author across all threads.
        self.client_requests: dict[tuple[uuid.UUID, str], str] = {}

    def section(self, name: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.world.get(name, [])
        return items

    # -- registration helpers

    def claim(self, name: str, path: str, entity_id: uuid.UUID) -> None:
        first = self.names.get(name)
        if first is not None:
            raise WorldError(path, f'duplicate name "{name}" (already used at {first})')
        self.names[name] = path
        self.mapping[name] = str(entity_id)

    def new_id(self, item: Mapping[str, Any], path: str, table: str) -> uuid.UUID:
        raw = item.get("id")
        if raw is None:
            return uuid.uuid4()
        entity_id = uuid.UUID(raw)
        id_path = _join(path, "id")
        first = self.explicit_ids.get(entity_id)
        if first is not None:
            raise WorldError(id_path, f"duplicate id (already used at {first})")
        self.explicit_ids[entity_id] = id_path
        self.probes.append(_Probe(table, "id", entity_id, id_path, "id"))
        return entity_id

    def token(self, item: Mapping[str, Any], path: str, kind: str, **holder: uuid.UUID) -> None:
        raw = item.get("token")
        if raw is None:
            return
        token_path = _join(path, "token")
        digest = hash_token(raw)
        first = self.tokens.get(digest)
        if first is not None:
            raise WorldError(token_path, f"duplicate token (already used at {first})")
        self.tokens[digest] = token_path
        self.probes.append(_Probe("api_tokens", "token_hash", digest, token_path, "token"))
        self.rows["api_tokens"].append(
            {
                "id": uuid.uuid4(),
                "token_hash": digest,
                "kind": kind,
                "principal_id": holder.get("principal_id"),
                "runner_id": holder.get("runner_id"),
            }
        )

    # -- reference helpers

    def principal(self, handle: str, path: str, kind: str | None = None) -> _Principal:
        found = self.principals.get(handle)
        if found is None:
            what = "principal" if kind is None else _KIND_WORDS[kind].split(" ", 1)[1]
            raise WorldError(path, f'unknown {what} "{handle}"')
        if kind is not None and found.kind != kind:
            raise WorldError(
                path, f'"{handle}" is {_KIND_WORDS[found.kind]}, not {_KIND_WORDS[kind]}'
            )
        return found

    def channel(self, channel_path: str, path: str) -> uuid.UUID:
        found = self.channels.get(channel_path)
        if found is None:
            raise WorldError(path, f'unknown channel "{channel_path}"')
        return found

    def thread_ref(self, ref: str, path: str) -> uuid.UUID:
        if "/" in ref:
            self.channel(ref, path)
            return self.main_threads[ref]
        found = self.threads.get(ref)
        if found is None:
            raise WorldError(path, f'unknown thread "{ref}"')
        return found.id

    def message(self, key: str, path: str) -> _Message:
        found = self.messages.get(key)
        if found is None:
            raise WorldError(path, f'unknown message "{key}"')
        return found

    # -- pass one

    def register(self) -> None:
        for section, kind in (("people", "user"), ("agents", "agent"), ("apps", "app")):
            for index, item in enumerate(self.section(section)):
                path = _join(section, index)
                principal_id = self.new_id(item, path, "principals")
                self.claim(item["handle"], _join(path, "handle"), principal_id)
                self.principals[item["handle"]] = _Principal(principal_id, kind)
                self.probes.append(
                    _Probe(
                        "principals",
                        "handle",
                        item["handle"],
                        _join(path, "handle"),
                        f'handle "{item["handle"]}"',
                    )
                )
        for index, item in enumerate(self.section("runners")):
            path = _join("runners", index)
            runner_id = self.new_id(item, path, "runners")
            self.claim(item["handle"], _join(path, "handle"), runner_id)
            self.runners[item["handle"]] = runner_id
            self.probes.append(
                _Probe(
                    "runners",
                    "handle",
                    item["handle"],
                    _join(path, "handle"),
                    f'runner handle "{item["handle"]}"',
                )
            )
            for workspace_index, workspace in enumerate(item.get("workspaces", [])):
                workspace_path = _join(path, "workspaces", workspace_index)
                workspace["_id"] = self.new_id(workspace, workspace_path, "session_bindings")
                if "key" in workspace:
                    self.claim(workspace["key"], _join(workspace_path, "key"), workspace["_id"])
        for index, item in enumerate(self.section("groups")):
            path = _join("groups", index)
            group_id = self.new_id(item, path, "groups")
            self.claim(item["key"], _join(path, "key"), group_id)
            self.groups[item["key"]] = group_id
            self.probes.append(
                _Probe("groups", "key", item["key"], _join(path, "key"), f'group "{item["key"]}"')
            )
        for space_index, space in enumerate(self.section("spaces")):
            space_path = _join("spaces", space_index)
            space_id = self.new_id(space, space_path, "spaces")
            self.claim(space["name"], _join(space_path, "name"), space_id)
            self.spaces[space["name"]] = space_id
            self.probes.append(
                _Probe(
                    "spaces",
                    "name",
                    space["name"],
                    _join(space_path, "name"),
                    f'space "{space["name"]}"',
                )
            )
            for channel_index, channel in enumerate(space.get("channels", [])):
                channel_path = _join(space_path, "channels", channel_index)
                channel_id = self.new_id(channel, channel_path, "channels")
                full_name = f"{space['name']}/{channel['name']}"
                self.claim(full_name, _join(channel_path, "name"), channel_id)
                self.channels[full_name] = channel_id
                main_id = uuid.uuid4()
                self.claim(f"{full_name}#main", _join(channel_path, "name"), main_id)
                self.main_threads[full_name] = main_id
                self.register_messages(channel, channel_path, main_id)
        for index, item in enumerate(self.section("threads")):
            path = _join("threads", index)
            thread_id = self.new_id(item, path, "threads")
            self.claim(item["key"], _join(path, "key"), thread_id)
            keys = self.register_messages(item, path, thread_id)
            self.threads[item["key"]] = _Thread(thread_id, frozenset(keys), item.get("parent"))
        for section, table in (
            ("grants", "grants"),
            ("sessions", "agent_sessions"),
            ("runs", "runs"),
            ("followups", "run_followups"),
        ):
            for index, item in enumerate(self.section(section)):
                path = _join(section, index)
                item["_id"] = self.new_id(item, path, table)
                if "key" in item:
                    self.claim(item["key"], _join(path, "key"), item["_id"])

    def register_messages(
        self, container: Mapping[str, Any], path: str, thread_id: uuid.UUID
    ) -> list[str]:
        keys: list[str] = []
        for index, item in enumerate(container.get("messages", [])):
            message_path = _join(path, "messages", index)
            message_id = self.new_id(item, message_path, "messages")
            item["_id"] = message_id
            for attachment_index, attachment in enumerate(item.get("attachments", [])):
                attachment_path = _join(message_path, "attachments", attachment_index)
                attachment["_id"] = self.new_id(attachment, attachment_path, "attachments")
            if "key" in item:
                self.claim(item["key"], _join(message_path, "key"), message_id)
                self.messages[item["key"]] = _Message(message_id, thread_id)
                keys.append(item["key"])
        return keys

    # -- pass two

    def build(self) -> None:
        self.build_principals()
        self.build_runners_and_groups()
        self.build_spaces()
        self.build_threads()
        self.build_grants()
        self.build_sessions_runs_followups()
        self.build_privacy_policies()

    def build_principals(self) -> None:
        for section, kind in (("people", "user"), ("agents", "agent"), ("apps", "app")):
            for index, item in enumerate(self.section(section)):
                path = _join(section, index)
                principal_id = self.principals[item["handle"]].id
                owner_id = None
                if kind == "agent" and "owner" in item:
                    owner_id = self.principal(item["owner"], _join(path, "owner"), "user").id
                if kind == "agent" and "home_channel" in item:
                    home = self.channel(item["home_channel"], _join(path, "home_channel"))
                    self.home_channels.append((principal_id, home))
                self.rows["principals"].append(
                    {
                        "id": principal_id,
                        "kind": kind,
                        "handle": item["handle"],
                        "display_name": item.get("display_name", item["handle"]),
                        "email": item.get("email"),
                        "status": item.get("status", "active"),
                        "is_owner": bool(item.get("owner", False)) if kind == "user" else False,
                        "owner_user_id": owner_id,
                        "acting_for": item.get("acting_for", "optional"),
                    }
                )
                for permission in item.get("permissions", []):
                    self.rows["principal_permissions"].append(
                        {"principal_id": principal_id, "permission": permission}
                    )
                self.token(
                    item, path, _TOKEN_KIND_BY_PRINCIPAL_KIND[kind], principal_id=principal_id
                )

    def build_runners_and_groups(self) -> None:
        for index, item in enumerate(self.section("runners")):
            path = _join("runners", index)
            runner_id = self.runners[item["handle"]]
            enrolled_at = item.get("enrolled_at")
            self.rows["runners"].append(
                {
                    "id": runner_id,
                    "handle": item["handle"],
                    "enrollment_epoch": int(item.get("enrollment_epoch", 0)),
                    "enrolled_at": (
                        _parse_time(enrolled_at, _join(path, "enrolled_at"))
                        if enrolled_at is not None
                        else None
                    ),
                }
            )
            self.token(item, path, "runner", runner_id=runner_id)
            self.build_workspaces(item, path, runner_id)
        for index, item in enumerate(self.section("groups")):
            path = _join("groups", index)
            group_id = self.groups[item["key"]]
            self.rows["groups"].append({"id": group_id, "key": item["key"]})
            for member_index, handle in enumerate(item.get("members", [])):
                member = self.principal(handle, _join(path, "members", member_index))
                self.rows["group_members"].append({"group_id": group_id, "principal_id": member.id})

    def build_workspaces(self, runner: Mapping[str, Any], path: str, runner_id: uuid.UUID) -> None:
        """Bindings of the runner's current enrolment; bound when a session id is given."""
        containers: dict[str, str] = {}
        sessions: dict[str, str] = {}
        if runner.get("workspaces") and "enrolled_at" not in runner:
            # A binding belongs to an enrolment; a runner that never enrolled holds none.
            raise WorldError(
                _join(path, "workspaces"), "needs a runner that has enrolled (enrolled_at)"
            )
        for index, item in enumerate(runner.get("workspaces", [])):
            workspace_path = _join(path, "workspaces", index)
            agent = self.principal(item["agent"], _join(workspace_path, "agent"), "agent")
            for field_name, seen in (("container_name", containers), ("session_id", sessions)):
                if field_name not in item:
                    continue
                first = seen.get(item[field_name])
                if first is not None:
                    raise WorldError(
                        _join(workspace_path, field_name),
                        f"already used by this runner at {first}",
                    )
                seen[item[field_name]] = workspace_path
            self.rows["session_bindings"].append(
                {
                    "id": item["_id"],
                    "runner_id": runner_id,
                    "enrollment_epoch": int(runner.get("enrollment_epoch", 0)),
                    "container_name": item["container_name"],
                    "session_id": item.get("session_id"),
                    "agent_id": agent.id,
                    "state": "bound" if "session_id" in item else "provisioned",
                }
            )

    def build_spaces(self) -> None:
        for space_index, space in enumerate(self.section("spaces")):
            space_path = _join("spaces", space_index)
            space_id = self.spaces[space["name"]]
            self.rows["spaces"].append(
                {
                    "id": space_id,
                    "name": space["name"],
                    "archived_at": self.loaded_at if space.get("archived") else None,
                }
            )
            for channel_index, channel in enumerate(space.get("channels", [])):
                channel_path = _join(space_path, "channels", channel_index)
                full_name = f"{space['name']}/{channel['name']}"
                channel_id = self.channels[full_name]
                operator_id = None
                if "operator" in channel:
                    operator_id = self.principal(
                        channel["operator"], _join(channel_path, "operator"), "agent"
                    ).id
                self.rows["channels"].append(
                    {
                        "id": channel_id,
                        "space_id": space_id,
                        "name": channel["name"],
                        "kind": channel.get("kind", "regular"),
                        "archived_at": self.loaded_at if channel.get("archived") else None,
                        "history_backfill_limit": channel.get("history_backfill_limit"),
                        "operator_agent_id": operator_id,
                        "allow_mentioned_agents": bool(
                            channel.get("allow_mentioned_agents", False)
                        ),
                        "auto_thread": bool(channel.get("auto_thread", False)),
                    }
                )
                for member_index, handle in enumerate(channel.get("members", [])):
                    member = self.principal(handle, _join(channel_path, "members", member_index))
                    self.rows["channel_members"].append(
                        {"channel_id": channel_id, "principal_id": member.id}
                    )
                main_id = self.main_threads[full_name]
                self.rows["threads"].append(
                    {
                        "id": main_id,
                        "channel_id": channel_id,
                        "kind": "main",
                        "parent_message_id": None,
                        "operator_agent_id": None,
                    }
                )
                self.build_messages(channel, channel_path, main_id)

    def build_threads(self) -> None:
        parents: dict[str, str] = {}
        for index, item in enumerate(self.section("threads")):
            path = _join("threads", index)
            thread = self.threads[item["key"]]
            self.channel(item["channel"], _join(path, "channel"))
            operator_id = None
            if "operator" in item:
                operator_id = self.principal(item["operator"], _join(path, "operator"), "agent").id
            if thread.parent is not None:
                parent_path = _join(path, "parent")
                parent = self.message(thread.parent, parent_path)
                if thread.parent in thread.message_keys:
                    raise WorldError(parent_path, "must not be a message of the thread itself")
                if thread.parent in parents:
                    raise WorldError(
                        parent_path,
                        f'message "{thread.parent}" is already the parent of '
                        f"{parents[thread.parent]}",
                    )
                parents[thread.parent] = path
                self.parents.append((thread.id, parent.id))
            self.rows["threads"].append(
                {
                    "id": thread.id,
                    "channel_id": self.channels[item["channel"]],
                    "kind": item.get("kind", "thread"),
                    # Set after all messages exist (the parent may be in a later thread).
                    "parent_message_id": None,
                    "operator_agent_id": operator_id,
                }
            )
            self.build_messages(item, path, thread.id)

    def build_messages(self, container: Mapping[str, Any], path: str, thread_id: uuid.UUID) -> None:
        previous: datetime | None = None
        for index, item in enumerate(container.get("messages", [])):
            message_path = _join(path, "messages", index)
            author = self.principal(item["author"], _join(message_path, "author"))
            origin = item.get("origin", _ORIGIN_BY_KIND[author.kind])
            if "system_code" in item and origin != "system":
                raise WorldError(
                    _join(message_path, "system_code"), "is only allowed with origin system"
                )
            if "at" in item:
                created_at = _parse_time(item["at"], _join(message_path, "at"))
                if previous is not None and created_at <= previous:
                    raise WorldError(
                        _join(message_path, "at"),
                        "must be later than the previous message of the thread",
                    )
            else:
                created_at = self.cursor
            # The cursor only moves forwards, so an implicit time after an explicit one
            # is still later than everything before it.
            self.cursor = max(self.cursor, created_at) + _STEP
            previous = created_at
            if "client_request_id" in item:
                request_path = _join(message_path, "client_request_id")
                request = (author.id, item["client_request_id"])
                first = self.client_requests.get(request)
                if first is not None:
                    raise WorldError(
                        request_path,
                        f"duplicate client_request_id for this author (already used at {first})",
                    )
                self.client_requests[request] = request_path
            if "reply_to" in item:
                reply_path = _join(message_path, "reply_to")
                target = self.message(item["reply_to"], reply_path)
                if target.id == item["_id"]:
                    raise WorldError(reply_path, "a message cannot reply to itself")
                self.replies.append((item["_id"], target.id))
            deleted = bool(item.get("deleted", False))
            self.rows["messages"].append(
                {
                    "id": item["_id"],
                    "thread_id": thread_id,
                    "thread_seq": index + 1,
                    "author_principal_id": author.id,
                    "origin": origin,
                    "kind": item.get("kind", "system" if origin == "system" else "text"),
                    # A tombstone keeps no content (CHECK deleted_has_no_content).
                    "content_md": "" if deleted else item.get("content", ""),
                    "reply_to_message_id": None,
                    "system_code": item.get("system_code"),
                    "client_request_id": item.get("client_request_id"),
                    "created_at": created_at,
                    "deleted_at": max(self.loaded_at, created_at) if deleted else None,
                }
            )
            for position, attachment in enumerate(item.get("attachments", [])):
                file_id = attachment.get("file_id")
                self.rows["attachments"].append(
                    {
                        "id": attachment["_id"],
                        "message_id": item["_id"],
                        "position": position,
                        "file_id": uuid.UUID(file_id) if file_id else uuid.uuid4(),
                        "original_name": attachment["original_name"],
                        "mime_type": attachment["mime_type"],
                        "size_bytes": int(attachment["size_bytes"]),
                        "scan_status": attachment["scan_status"],
                        "transcript": attachment.get("transcript"),
                    }
                )

    def build_grants(self) -> None:
        for index, item in enumerate(self.section("grants")):
            path = _join("grants", index)
            subject: str = item["subject"]
            subject_principal = subject_group = None
            if subject.startswith("group:"):
                key = subject.removeprefix("group:")
                subject_group = self.groups.get(key)
                if subject_group is None:
                    raise WorldError(_join(path, "subject"), f'unknown group "{key}"')
            else:
                subject_principal = self.principal(subject, _join(path, "subject")).id
            target: str = item["target"]
            target_space = target_channel = None
            if target.startswith("space:"):
                name = target.removeprefix("space:")
                target_space = self.spaces.get(name)
                if target_space is None:
                    raise WorldError(_join(path, "target"), f'unknown space "{name}"')
            else:
                target_channel = self.channel(
                    target.removeprefix("channel:"), _join(path, "target")
                )
            expires_at = item.get("expires_at")
            self.rows["grants"].append(
                {
                    "id": item["_id"],
                    "subject_principal_id": subject_principal,
                    "subject_group_id": subject_group,
                    "target_space_id": target_space,
                    "target_channel_id": target_channel,
                    "level": item["level"],
                    "expires_at": (
                        _parse_time(expires_at, _join(path, "expires_at"))
                        if expires_at is not None
                        else None
                    ),
                }
            )

    def build_sessions_runs_followups(self) -> None:
        current: dict[uuid.UUID, str] = {}
        for index, item in enumerate(self.section("sessions")):
            path = _join("sessions", index)
            thread_id = self.thread_ref(item["thread"], _join(path, "thread"))
            agent = self.principal(item["agent"], _join(path, "agent"), "agent")
            is_current = bool(item.get("current", True))
            if is_current:
                if thread_id in current:
                    raise WorldError(
                        _join(path, "current"),
                        f"the thread already has a current session ({current[thread_id]})",
                    )
                current[thread_id] = path
            self.sessions[item["key"]] = _Session(item["_id"], thread_id, agent.id)
            self.rows["agent_sessions"].append(
                {
                    "id": item["_id"],
                    "thread_id": thread_id,
                    "agent_id": agent.id,
                    "is_current": is_current,
                    "started": bool(item.get("started", False)),
                    "created_at": self.tick(),
                }
            )
        for index, item in enumerate(self.section("runs")):
            self.build_run(item, _join("runs", index))
        for index, item in enumerate(self.section("followups")):
            path = _join("followups", index)
            run = self.runs.get(item["run"])
            if run is None:
                raise WorldError(_join(path, "run"), f'unknown run "{item["run"]}"')
            message = self.message(item["message"], _join(path, "message"))
            if message.thread_id != run.thread_id:
                raise WorldError(_join(path, "message"), "must be a message of the run's thread")
            self.rows["run_followups"].append(
                {
                    "id": item["_id"],
                    "run_id": run.id,
                    "message_id": message.id,
                    "state": item.get("state", "pending"),
                }
            )

    def build_run(self, item: Mapping[str, Any], path: str) -> None:
        thread_id = self.thread_ref(item["thread"], _join(path, "thread"))
        agent = self.principal(item["agent"], _join(path, "agent"), "agent")
        session_id = None
        if "session" in item:
            session_path = _join(path, "session")
            session = self.sessions.get(item["session"])
            if session is None:
                raise WorldError(session_path, f'unknown session "{item["session"]}"')
            if session.thread_id != thread_id or session.agent_id != agent.id:
                raise WorldError(session_path, "must be a session of the run's agent and thread")
            session_id = session.id
        trigger_id = None
        if "trigger" in item:
            trigger_path = _join(path, "trigger")
            trigger = self.message(item["trigger"], trigger_path)
            # The run context reads the trigger from the run's thread, or it is the
            # parent message of an auto-created thread.
            parent_ids = {parent for thread, parent in self.parents if thread == thread_id}
            if trigger.thread_id != thread_id and trigger.id not in parent_ids:
                raise WorldError(
                    trigger_path, "must be a message of the run's thread or its parent message"
                )
            trigger_id = trigger.id
        triggered_by = None
        if "triggered_by" in item:
            triggered_by = self.principal(item["triggered_by"], _join(path, "triggered_by")).id
        task_key = item.get("task_key")
        if task_key is not None and not is_task_key(task_key):
            raise WorldError(_join(path, "task_key"), "must be a task key")
        self.runs[item["key"]] = _Run(item["_id"], thread_id)
        queued_at = item.get("queued_at")
        self.rows["runs"].append(
            {
                "id": item["_id"],
                "thread_id": thread_id,
                "agent_id": agent.id,
                "agent_session_id": session_id,
                "trigger_kind": item.get("trigger_kind", "message"),
                "triggering_message_id": trigger_id,
                "triggered_by": triggered_by,
                "state": item.get("state", "queued"),
                "queued_at": (
                    _parse_time(queued_at, _join(path, "queued_at"))
                    if queued_at is not None
                    else self.tick()
                ),
                "task_key": task_key,
            }
        )

    def build_privacy_policies(self) -> None:
        """Provider and task policies; keys are unique in the world and the database."""
        for section, table, key_field, column, valid in (
            ("provider_policies", "provider_policies", "provider", "provider_id", is_provider_id),
            ("task_policies", "task_policies", "task", "task_key", is_task_key),
        ):
            seen: dict[str, str] = {}
            for index, item in enumerate(self.section(section)):
                path = _join(section, index)
                key_path = _join(path, key_field)
                key = item[key_field]
                if not valid(key):
                    raise WorldError(key_path, f"must be a {key_field} id")
                if key in seen:
                    raise WorldError(
                        key_path, f'duplicate {key_field} "{key}" (already at {seen[key]})'
                    )
                seen[key] = key_path
                self.probes.append(_Probe(table, column, key, key_path, f'{key_field} "{key}"'))
                self.rows[table].append(
                    {
                        column: key,
                        "audit_content_ceiling": item.get("audit_content_ceiling"),
                        "background_answer_ceiling": item.get("background_answer_ceiling"),
                    }
                )

    def tick(self) -> datetime:
        """Next implicit timestamp: sessions and runs come after every message."""
        stamp = self.cursor
        self.cursor += _STEP
        return stamp

    def plan(self) -> WorldPlan:
        self.register()
        self.build()
        inserts = tuple(
            (table.name, tuple(self.rows[table.name]))
            for table in Base.metadata.sorted_tables
            if self.rows[table.name]
        )
        updates = tuple(
            (table, column, tuple(pairs))
            for table, column, pairs in (
                ("principals", "home_channel_id", self.home_channels),
                ("threads", "parent_message_id", self.parents),
                ("messages", "reply_to_message_id", self.replies),
            )
            if pairs
        )
        return WorldPlan(dict(self.mapping), inserts, updates, tuple(self.probes))


def validate_world(world: Mapping[str, Any]) -> WorldPlan:
    """Check a parsed world completely and compute what loading it would write.

    Null values count as absent. The shape is checked against
    :data:`app.world_schema.WORLD_SCHEMA` (the first error in document order is
    reported), then every reference and cross-entity rule; no database is touched.

    Raises:
        WorldError: the first problem found, with the path that names it.
    """
    if not isinstance(world, Mapping):
        raise WorldError("$", "must be a mapping of sections such as people and spaces")
    document = _normalise(world, [])
    if not _FAST_VALIDATOR.is_valid(document):
        errors = sorted(
            _VALIDATOR.iter_errors(document),
            key=lambda error: (_path_sort_key(error), str(error.validator)),
        )
        if errors:
            raise _schema_error(errors[0])
    return _Planner(document).plan()


# --------------------------------------------------------------------------- loading


def _check_existing(conn: Connection, plan: WorldPlan) -> None:
    """Fail with a precise path when a unique value of the plan already exists."""
    by_column: dict[tuple[str, str], list[_Probe]] = {}
    for probe in plan.probes:
        by_column.setdefault((probe.table, probe.column), []).append(probe)
    clashes: list[_Probe] = []
    for (table_name, column_name), probes in by_column.items():
        column = Base.metadata.tables[table_name].c[column_name]
        values = [probe.value for probe in probes]
        existing = set(conn.execute(select(column).where(column.in_(values))).scalars())
        clashes.extend(probe for probe in probes if probe.value in existing)
    if clashes:
        order = {id(probe): index for index, probe in enumerate(plan.probes)}
        first = min(clashes, key=lambda probe: order[id(probe)])
        raise WorldError(first.path, f"{first.what} already exists in the database")


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


# COPY's text format escapes backslash, tab, newline and carriage return.
_COPY_ESCAPES: Final = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_value(value: Any) -> str:
    """One value in COPY's text format (NULL is ``\\N``)."""
    if type(value) is str:
        return value.translate(_COPY_ESCAPES)
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value).translate(_COPY_ESCAPES)


def _copy(conn: Connection, table_name: str, rows: Sequence[dict[str, Any]]) -> bool:
    """Write ``rows`` with ``COPY ... FROM STDIN``; False when they do not fit (nothing
    written then: the rows must share one set of columns of scalar values).

    Raises:
        psycopg2.IntegrityError: a row violates a constraint.
    """
    columns = list(rows[0])
    if any(list(row) != columns for row in rows):
        return False
    scalar = (str, int, bool, datetime, uuid.UUID, type(None))
    if any(not isinstance(value, scalar) for row in rows for value in row.values()):
        return False
    buffer = io.StringIO("".join("\t".join(map(_copy_value, row.values())) + "\n" for row in rows))
    table = _table(table_name)
    names = ", ".join(f'"{table.c[column].name}"' for column in columns)
    raw = conn.connection.dbapi_connection
    assert raw is not None
    cursor: Any = raw.cursor()  # psycopg2's cursor: copy_expert is not in the DB-API
    try:
        cursor.copy_expert(f'COPY "{table.name}" ({names}) FROM STDIN', buffer)
    finally:
        cursor.close()
    return True


def _write(conn: Connection, plan: WorldPlan) -> None:
    for table_name, rows in plan.inserts:
        if len(rows) >= _COPY_THRESHOLD and _copy(conn, table_name, rows):
            continue
        conn.execute(insert(_table(table_name)), list(rows))
    for table_name, column, pairs in plan.updates:
        table = _table(table_name)
        statement = (
            update(table)
            .where(table.c.id == bindparam("row_id"))
            .values({column: bindparam("new_value")})
        )
        conn.execute(statement, [{"row_id": row, "new_value": value} for row, value in pairs])


def _integrity_error(exc: IntegrityError | psycopg2.IntegrityError) -> WorldError:
    orig = exc.orig if isinstance(exc, IntegrityError) else exc
    diag = getattr(orig, "diag", None)
    constraint = getattr(diag, "constraint_name", None) or "an unnamed constraint"
    kind = _INTEGRITY_KINDS.get(str(getattr(orig, "pgcode", "")), "integrity error")
    return WorldError("$", f"conflicts with the database ({kind} on {constraint})")


def load_world(conn: Connection, world: Mapping[str, Any]) -> dict[str, str]:
    """Validate ``world`` and write it through ``conn``; return the name-to-id mapping.

    The caller owns the transaction (``with engine.begin() as conn``). All writes run
    inside a savepoint, so on failure the world's rows are gone and the caller's
    transaction is still usable. Nothing is written unless validation passed. The
    planner's statistics are the caller's business here (:func:`load_world_data`
    analyses what it filled after the commit).

    Raises:
        WorldError: the world is invalid (see :func:`validate_world`), a handle, key,
            token or id already exists in the database, or the database rejects a row
            (path ``$``, naming the constraint).
    """
    return _load(conn, world)[0]


def _load(conn: Connection, world: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """:func:`load_world`, also returning the names of the tables it wrote rows to."""
    plan = validate_world(world)
    _check_existing(conn, plan)
    try:
        with conn.begin_nested():
            _write(conn, plan)
    except (IntegrityError, psycopg2.IntegrityError) as exc:
        # "from None": the driver's message quotes the SQL parameters, i.e. content.
        raise _integrity_error(exc) from None
    filled = [name for name, _rows in plan.inserts]
    filled += [name for name, _column, _pairs in plan.updates if name not in filled]
    return dict(plan.mapping), filled


def analyze_tables(conn: Connection, tables: Iterable[str]) -> None:
    """``ANALYZE`` these tables of the schema, so the planner knows their new size.

    Without statistics the planner guesses, and a prepared statement keeps the plan
    it guessed (ADR 0010): after a bulk load, analyse what was loaded. Run outside the
    loading transaction, after its commit, so other sessions see the statistics of
    committed rows.
    """
    names = [_table(name).name for name in tables]
    if names:
        conn.execute(text("ANALYZE " + ", ".join(f'"{name}"' for name in names)))


def load_world_data(
    database_url: str, world: Mapping[str, Any], *, analyze: bool = True
) -> dict[str, str]:
    """Load a parsed world into ``database_url`` in one transaction, then ``ANALYZE``
    the tables it filled (unless ``analyze`` is false); the name-to-id mapping.

    What ``python -m app world load`` does after reading the file.

    Raises:
        WorldError: see :func:`load_world`; nothing was written.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            mapping, filled = _load(conn, world)
        if analyze:
            with engine.connect() as conn:
                analyze_tables(conn, filled)
                conn.commit()
        return mapping
    finally:
        engine.dispose()


def load_world_file(database_url: str, path: str, *, analyze: bool = True) -> dict[str, str]:
    """Load the YAML world fixture at ``path`` into ``database_url`` in one transaction,
    then ``ANALYZE`` the tables it filled (see :func:`load_world_data`).

    Raises:
        WorldError: the file cannot be read, is not valid YAML, or fails
            :func:`load_world`; nothing was written.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    try:
        text_ = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise WorldError(path, f"cannot read the file ({reason})") from None
    world = parse_world_yaml(text_, source=path)
    return load_world_data(database_url, world, analyze=analyze)
