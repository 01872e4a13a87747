"""What the planner knows while it works: names, ids, rows so far, and its lookups.

:class:`PlanState` is shared by the two passes (``plan_names`` registers every name
and id; ``plan_people``, ``plan_chat`` and ``plan_runs`` resolve references and build
rows). Every lookup raises :class:`WorldError` with the path of the reference.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

from app.tokens import hash_token
from repositories.models import Base
from world.errors import WorldError, join_path

__all__ = [
    "BASE_TIME",
    "STEP",
    "KnownMessage",
    "KnownPrincipal",
    "KnownRun",
    "KnownSession",
    "KnownThread",
    "PlanState",
    "Probe",
    "Row",
    "WorldPlan",
    "parse_time",
]

# Messages without an explicit ``at`` are stamped from this fixed instant onwards, one
# second apart in document order. A fixed past instant keeps fixtures deterministic
# and keeps every fixture message older than anything the running service writes.
BASE_TIME: Final = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
STEP: Final = timedelta(seconds=1)

_KIND_WORDS: Final = {"user": "a person", "agent": "an agent", "app": "an app"}

Row = dict[str, Any]
_T = TypeVar("_T")


@dataclass(frozen=True)
class Probe:
    """A value the plan inserts into a unique column, checked against existing rows."""

    table: str
    column: str
    value: Any
    path: str
    what: str


@dataclass(frozen=True)
class WorldPlan:
    """Everything loading a world will write, computed without a database.

    ``mapping`` is the name-to-id mapping that loading returns. ``inserts`` lists rows
    per table in foreign-key order; ``updates`` closes the reference cycles (home
    channel, thread parent, reply-to) after all rows exist.
    """

    mapping: dict[str, str]
    inserts: tuple[tuple[str, tuple[Row, ...]], ...]
    updates: tuple[tuple[str, str, tuple[tuple[uuid.UUID, uuid.UUID], ...]], ...]
    probes: tuple[Probe, ...] = field(repr=False)


@dataclass(frozen=True)
class KnownPrincipal:
    id: uuid.UUID
    kind: str


@dataclass(frozen=True)
class KnownMessage:
    id: uuid.UUID
    thread_id: uuid.UUID


@dataclass(frozen=True)
class KnownThread:
    id: uuid.UUID
    # Messages listed under this thread, by key: a parent may not lie inside.
    message_keys: frozenset[str]
    parent: str | None


@dataclass(frozen=True)
class KnownSession:
    id: uuid.UUID
    thread_id: uuid.UUID
    agent_id: uuid.UUID


@dataclass(frozen=True)
class KnownRun:
    id: uuid.UUID
    thread_id: uuid.UUID


def parse_time(value: str, path: str) -> datetime:
    """An RFC 3339 date-time with a time zone (the schema checked its shape).

    Raises:
        WorldError: an impossible date or a missing time zone.
    """
    try:
        # RFC 3339 allows lower-case "t" and "z"; fromisoformat does not.
        parsed = datetime.fromisoformat(value.upper())
    except ValueError:
        raise WorldError(path, "must be an RFC 3339 date-time with a time zone") from None
    if parsed.tzinfo is None:
        raise WorldError(path, "must be an RFC 3339 date-time with a time zone")
    return parsed


class PlanState:
    """The planner's names, ids and rows; raises WorldError at the first problem.

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
        self.probes: list[Probe] = []
        self.principals: dict[str, KnownPrincipal] = {}
        self.runners: dict[str, uuid.UUID] = {}
        self.groups: dict[str, uuid.UUID] = {}
        self.spaces: dict[str, uuid.UUID] = {}
        self.channels: dict[str, uuid.UUID] = {}
        self.main_threads: dict[str, uuid.UUID] = {}
        self.threads: dict[str, KnownThread] = {}
        self.messages: dict[str, KnownMessage] = {}
        self.sessions: dict[str, KnownSession] = {}
        self.runs: dict[str, KnownRun] = {}
        self.rows: dict[str, list[Row]] = {table.name: [] for table in Base.metadata.sorted_tables}
        self.home_channels: list[tuple[uuid.UUID, uuid.UUID]] = []
        self.parents: list[tuple[uuid.UUID, uuid.UUID]] = []
        self.replies: list[tuple[uuid.UUID, uuid.UUID]] = []
        # (author id, client_request_id) -> path: unique per author across all threads.
        self.client_requests: dict[tuple[uuid.UUID, str], str] = {}

    def section(self, name: str) -> list[dict[str, Any]]:
        """The items of a top-level section (empty when absent)."""
        items: list[dict[str, Any]] = self.world.get(name, [])
        return items

    # -- registration helpers

    def claim(self, name: str, path: str, entity_id: uuid.UUID) -> None:
        """Enter ``name`` into the one flat namespace of the returned mapping."""
        first = self.names.get(name)
        if first is not None:
            raise WorldError(path, f'duplicate name "{name}" (already used at {first})')
        self.names[name] = path
        self.mapping[name] = str(entity_id)

    def new_id(self, item: Mapping[str, Any], path: str, table: str) -> uuid.UUID:
        """The item's explicit ``id`` (unique in the world and the database), or a new one."""
        raw = item.get("id")
        if raw is None:
            return uuid.uuid4()
        entity_id = uuid.UUID(raw)
        id_path = join_path(path, "id")
        first = self.explicit_ids.get(entity_id)
        if first is not None:
            raise WorldError(id_path, f"duplicate id (already used at {first})")
        self.explicit_ids[entity_id] = id_path
        self.probes.append(Probe(table, "id", entity_id, id_path, "id"))
        return entity_id

    def named(
        self, item: Mapping[str, Any], path: str, table: str, field: str, what: str
    ) -> uuid.UUID:
        """The item's id, its unique ``field`` (handle, key, name) claimed in the mapping
        and probed against ``table`` (errors call it ``what "value"``)."""
        entity_id = self.new_id(item, path, table)
        name = item[field]
        name_path = join_path(path, field)
        self.claim(name, name_path, entity_id)
        self.probes.append(Probe(table, field, name, name_path, f'{what} "{name}"'))
        return entity_id

    def token(self, item: Mapping[str, Any], path: str, kind: str, **holder: uuid.UUID) -> None:
        """The ``api_tokens`` row of the item's ``token``, stored hashed, if it has one."""
        raw = item.get("token")
        if raw is None:
            return
        token_path = join_path(path, "token")
        digest = hash_token(raw)
        first = self.tokens.get(digest)
        if first is not None:
            raise WorldError(token_path, f"duplicate token (already used at {first})")
        self.tokens[digest] = token_path
        self.probes.append(Probe("api_tokens", "token_hash", digest, token_path, "token"))
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

    def principal(self, handle: str, path: str, kind: str | None = None) -> KnownPrincipal:
        """The principal ``handle``, of ``kind`` when one is given."""
        found = self.principals.get(handle)
        if found is None:
            what = "principal" if kind is None else _KIND_WORDS[kind].split(" ", 1)[1]
            raise WorldError(path, f'unknown {what} "{handle}"')
        if kind is not None and found.kind != kind:
            raise WorldError(
                path, f'"{handle}" is {_KIND_WORDS[found.kind]}, not {_KIND_WORDS[kind]}'
            )
        return found

    def group(self, key: str, path: str) -> uuid.UUID:
        """The id of the group ``key``."""
        return _known(self.groups, key, path, "group")

    def space(self, name: str, path: str) -> uuid.UUID:
        """The id of the space ``name``."""
        return _known(self.spaces, name, path, "space")

    def channel(self, channel_path: str, path: str) -> uuid.UUID:
        """The id of the channel ``space/channel``."""
        return _known(self.channels, channel_path, path, "channel")

    def thread_ref(self, ref: str, path: str) -> uuid.UUID:
        """The id of a thread by key, or of a channel's main thread by ``space/channel``."""
        if "/" in ref:
            self.channel(ref, path)
            return self.main_threads[ref]
        return _known(self.threads, ref, path, "thread").id

    def message(self, key: str, path: str) -> KnownMessage:
        """The message with ``key``."""
        return _known(self.messages, key, path, "message")

    def tick(self) -> datetime:
        """Next implicit timestamp: sessions and runs come after every message."""
        stamp = self.cursor
        self.cursor += STEP
        return stamp


def _known(entries: Mapping[str, _T], name: str, path: str, what: str) -> _T:
    """``entries[name]``, or a WorldError ``unknown <what> "<name>"`` at ``path``."""
    found = entries.get(name)
    if found is None:
        raise WorldError(path, f'unknown {what} "{name}"')
    return found
