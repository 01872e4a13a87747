"""Single-fact variants of a pivot input: the adequacy layer of the generated corpus.

Each fact of a pivot is changed on its own (other enum values, sibling ids, the
boundaries of ``now``, wrong types, missing keys; the table is in
docs/policy-review.md), with the shapes of the typed inputs (``app/policy/inputs.py``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Required, get_args, get_origin, get_type_hints

import orjson

from app.policy.gateway import INPUT_TYPES

__all__ = [
    "MALFORMED_TIME",
    "SCHEMAS",
    "UNKNOWN_ID",
    "Variants",
    "Vocabulary",
    "World",
    "variants",
]

# The contract of each entry point's input.
SCHEMAS: Mapping[str, Any] = INPUT_TYPES

UNKNOWN_ID = "nobody"
MALFORMED_TIME = "not-a-time"
_REMOVE = object()
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Vocabulary:
    """The values of each enum field: the domain's lists and the policies' literals.

    Attributes:
        domains: field name to the value lists of the service's schema (a field name
            can have several: ``kind`` of a principal, of a channel, of a grant's
            subject, ...).
        rego: field name to the strings the policies compare it with (the AST).
        names: list field name to the names it may hold (``permissions``).
    """

    domains: Mapping[str, Sequence[Sequence[str]]]
    rego: Mapping[str, frozenset[str]]
    names: Mapping[str, Sequence[str]]

    def unknown(self, field: str) -> str:
        """A value of ``field`` that no list and no rule knows."""
        known = set(self.rego.get(field, ())) | {
            value for values in self.domains.get(field, ()) for value in values
        }
        candidate = "unknown"
        while candidate in known:
            candidate += "-value"
        return candidate

    def new(self, field: str) -> list[str]:
        """The policies' values of ``field`` that no domain list has (new names)."""
        listed = {value for values in self.domains.get(field, ()) for value in values}
        return sorted(value for value in self.rego.get(field, ()) if value not in listed)

    def enum(self, field: str, domain: Sequence[str]) -> tuple[str, ...]:
        """``domain``, then the policies' new values of ``field``, then ``unknown``."""
        return (*domain, *self.new(field), self.unknown(field))

    def is_enum(self, field: str) -> bool:
        """Whether ``field`` holds one value of a list (a schema list or the rules')."""
        return field in self.domains or field in self.rego

    def alternatives(self, field: str, value: str) -> list[str]:
        """Every other value ``field`` can take where ``value`` is one of its values.

        The domain lists that hold ``value`` (a channel kind varies over channel
        kinds, not principal kinds), the policies' new values of the field and
        ``unknown``; for a value no list holds, every list and every literal.
        """
        lists = [values for values in self.domains.get(field, ()) if value in values]
        if lists:
            chosen = [v for values in lists for v in values] + self.new(field)
        else:
            chosen = [v for values in self.domains.get(field, ()) for v in values]
            chosen += sorted(self.rego.get(field, ()))
        chosen.append(self.unknown(field))
        return [v for v in dict.fromkeys(chosen) if v != value]

    def field_of(self, value: str) -> str | None:
        """The one enum field whose domain lists hold ``value`` (a map's value), if any."""
        fields = [
            field
            for field, lists in self.domains.items()
            if any(value in values for values in lists)
        ]
        return fields[0] if len(fields) == 1 else None


@dataclass(frozen=True)
class World:
    """The ids of the generated world and, for each, the ids that stand beside it.

    Attributes:
        siblings: id to the other ids of the same kind a rule could confuse it with.
        now: the fixed clock of every generated input.
        around_now: one second before ``now`` and one second after.
    """

    siblings: Mapping[str, Sequence[str]]
    now: str
    around_now: tuple[str, str]

    def is_time(self, value: str) -> bool:
        """Whether ``value`` is an RFC 3339 time of this world."""
        return len(value) == 20 and value[4] == "-" and value[10] == "T" and value.endswith("Z")

    def times(self, value: str) -> list[str]:
        """The boundaries of a time comparison with ``now``, and a malformed time."""
        before, after = self.around_now
        return [t for t in (before, self.now, after, MALFORMED_TIME) if t != value]


def _copy(document: Any) -> Any:
    return orjson.loads(orjson.dumps(document))


def _set(document: Any, path: Path, value: Any) -> Any:
    result = _copy(document)
    target = result
    for step in path[:-1]:
        target = target[step]
    if value is _REMOVE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return result


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """(the type, whether the key may be absent) of a TypedDict field hint."""
    origin = get_origin(hint)
    if origin is NotRequired:
        return get_args(hint)[0], True
    if origin is Required:
        return get_args(hint)[0], False
    return hint, False


def _is_typed_dict(hint: Any) -> bool:
    return isinstance(hint, type) and typing.is_typeddict(hint)


def _choose(hint: Any, value: Any) -> Any:
    """The member of a union of TypedDicts that describes ``value`` (by its ``kind``)."""
    if get_origin(hint) not in (typing.Union, types.UnionType):
        return hint
    members = get_args(hint)
    kind = value.get("kind") if isinstance(value, dict) else None
    for member in members:
        if _is_typed_dict(member):
            field = get_type_hints(member, include_extras=True).get("kind")
            if field is not None and get_origin(field) is Literal and kind in get_args(field):
                return member
    return members[0]


class Variants:
    """The variant maker of one vocabulary and world (it remembers each scalar's variants).

    Args:
        vocabulary: the values of the enum fields.
        world: the ids, their siblings and the clock.
    """

    def __init__(self, vocabulary: Vocabulary, world: World) -> None:
        self.vocabulary = vocabulary
        self.world = world
        self._scalars: dict[tuple[str, str, Any], list[Any]] = {}

    def of(self, entrypoint: str, pivot: Any, *, schema: Any = None) -> Iterator[Any]:
        """Every single-fact variant of ``pivot``, an input of ``entrypoint``.

        ``schema`` is the input's ``TypedDict`` (default: the entry point's in
        :data:`SCHEMAS`). The action of a decision is never varied: another action is
        another family's question.
        """
        for path, value in self.walk(pivot, schema or SCHEMAS[entrypoint], (), ""):
            if path in (("action",), ()):
                continue
            yield _set(pivot, path, value)

    def walk(self, value: Any, hint: Any, path: Path, key: str) -> Iterator[tuple[Path, Any]]:
        """``(path, new value)`` of every variant of ``value``, whose type is ``hint``.

        ``key`` is the field name ``value`` is held under (a list's items and a map's
        values are held under the list's or map's name); removals carry a marker.
        """
        hint = _choose(hint, value)
        if _is_typed_dict(hint):
            yield from self._object(value, hint, path)
        elif get_origin(hint) is dict:
            yield from self._map(value, get_args(hint)[1], path, key)
        elif get_origin(hint) is list:
            yield from self._list(value, get_args(hint)[0], path, key)
        else:  # str, bool, int, or a Literal kind
            yield from ((path, other) for other in self._scalar(key, value))

    def _object(self, value: Any, hint: Any, path: Path) -> Iterator[tuple[Path, Any]]:
        if not isinstance(value, dict):
            return
        if len(path) > 1:
            yield path, "malformed"  # a stored fact of the wrong type where an object belongs
        for name, field_hint in get_type_hints(hint, include_extras=True).items():
            field_type, optional = _unwrap(field_hint)
            if name in value:
                if optional or len(path) > 1 or path == ("facts",):
                    # A stored fact may lack a key; the request's own required parts
                    # (the run of a context read and its channel, the channel asked
                    # about) never do: the service builds them from NOT NULL columns.
                    yield (*path, name), _REMOVE
                if optional and not path and isinstance(value[name], dict):
                    # An optional part of the input (acting_for, task): a wrong type
                    # must fail closed like a missing one.
                    yield (name,), "malformed"
                yield from self.walk(value[name], field_type, (*path, name), name)
            elif optional:
                for added in self._absent(name, field_type):
                    yield (*path, name), added

    def _absent(self, name: str, field_type: Any) -> list[Any]:
        """Values for an optional key the pivot leaves out."""
        if field_type is str:
            if name.endswith("_at"):
                return [self.world.now, *self.world.around_now]
            if self.vocabulary.is_enum(name):
                return [self.vocabulary.unknown(name), *sorted(self.vocabulary.rego.get(name, ()))]
            return [UNKNOWN_ID]
        if field_type is bool:
            return [True]
        if field_type is int:
            return [0]
        return []

    def _map(self, value: Any, item: Any, path: Path, key: str) -> Iterator[tuple[Path, Any]]:
        if not isinstance(value, dict):
            return
        for name in value:
            yield (*path, name), _REMOVE
            yield from self.walk(value[name], item, (*path, name), key)
        named = [name for name in value if name not in self.world.siblings]
        if named:
            # A map keyed by names (ceiling kinds), not ids: a name no rule knows.
            yield (*path, self.vocabulary.unknown(key)), value[named[0]]

    def _list(self, value: Any, item: Any, path: Path, key: str) -> Iterator[tuple[Path, Any]]:
        if not isinstance(value, list):
            return
        for index, element in enumerate(value):
            yield path, value[:index] + value[index + 1 :]
            yield from self.walk(element, item, (*path, index), key)
        for name in self.vocabulary.names.get(key, ()):
            if name not in value:
                yield path, [*value, name]

    def _scalar(self, key: str, value: Any) -> list[Any]:
        cache_key = (key, type(value).__name__, value)
        if cache_key not in self._scalars:
            self._scalars[cache_key] = self._alternatives(key, value)
        return self._scalars[cache_key]

    def _alternatives(self, key: str, value: Any) -> list[Any]:
        if isinstance(value, bool):
            return [not value, "true"]
        if isinstance(value, int):
            return [value - 1, value + 1, str(value)]
        if not isinstance(value, str):
            return []
        if self.world.is_time(value):
            return list(self.world.times(value))
        if value in self.world.siblings:
            return [*self.world.siblings[value], UNKNOWN_ID]
        if self.vocabulary.is_enum(key):
            return self.vocabulary.alternatives(key, value)
        field = self.vocabulary.field_of(value)
        return self.vocabulary.alternatives(field, value) if field else []


def variants(entrypoint: str, pivot: Any, vocabulary: Vocabulary, world: World) -> Iterator[Any]:
    """Every single-fact variant of ``pivot`` (:meth:`Variants.of` without the memory)."""
    return Variants(vocabulary, world).of(entrypoint, pivot)
