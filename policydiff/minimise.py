"""Reduce a changed record to the facts that matter, by trying them.

First remove every list element, map entry and optional field the change does not
need; then change each remaining field on its own: those whose change alone makes the
change disappear are the facts that matter (docs/policy-guide.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from app.domain.privacy import CEILING_LEVELS
from policydiff.compare import Change, changes
from policydiff.generate import LEVELS, ORIGINS, RUN_STATES, STATUSES
from repositories.models import ACTING_FOR_VALUES

__all__ = ["Evaluator", "Fact", "Reduced", "reduce"]

# Evaluate inputs of one entry point on both servers: (base outcome, head outcome) each.
Evaluator = Callable[[str, Sequence[Any]], list[tuple[dict[str, Any], dict[str, Any]]]]

Path = tuple[str | int, ...]

_MAPS = {"principals", "channels", "spaces", "runners", "ceilings", "policy"}
_OPTIONAL = {
    "expires_at",
    "owner_id",
    "triggered_by",
    "parent",
    "task",
    "target",
    "runners",
    "acting_for",
    "requester",
}
# The enums of each field name, by field name: a value is varied over the enum of its
# field that holds it ("agent" is a principal kind and an author origin).
_ENUMS: dict[str, tuple[tuple[str, ...], ...]] = {
    "kind": (
        ("user", "agent", "app"),
        ("regular", "dm"),
        ("principal", "group"),
        ("space", "channel"),
    ),
    "status": (STATUSES,),
    "level": (LEVELS, CEILING_LEVELS),
    "state": (RUN_STATES, ("provisioned", "bound", "stopped")),
    "origin": (ORIGINS,),
    "plane": (("client", "server"),),
    "acting_for": (ACTING_FOR_VALUES,),
}
_TIMES = ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
# Ids the policies compare with other ids: another id may flip the answer.
_COMPARED_IDS = {"agent_id", "owner_id", "runner_id", "triggered_by", "requester"}
# Names and labels the change is about, not facts to vary.
_FIXED = {"action", "name", "surface_key"}


@dataclass(frozen=True, slots=True)
class Fact:
    """A field of the minimal input whose change alone makes the change disappear.

    Attributes:
        path: the field's place, written ``facts.principals.alex.status``.
        value: its value (``"present"`` for an element whose presence matters).
        steps: the same place as keys and indices.
    """

    path: str
    value: Any
    steps: tuple[str | int, ...] = ()


@dataclass(frozen=True, slots=True)
class Reduced:
    """A changed record reduced to what matters.

    Attributes:
        input: the minimal input that still shows the change.
        facts: the fields of ``input`` whose change alone makes it disappear.
        base: the base outcome of ``input``.
        head: the head outcome of ``input``.
    """

    input: Any
    facts: tuple[Fact, ...]
    base: dict[str, Any]
    head: dict[str, Any]


def _copy(document: Any) -> Any:
    return orjson.loads(orjson.dumps(document))


def _get(document: Any, path: Path) -> Any:
    for step in path:
        document = document[step]
    return document


def _removable(path: Path) -> bool:
    if not path:
        return False
    parent = path[-2] if len(path) >= 2 else None
    if path[-1] == "target" and "intents" not in path:
        return False  # a grant's target is required; only an intent's is optional
    if path[-2:] == ("resource", "run"):
        return True  # the run a bind asks for (absent when the run id names no run)
    return isinstance(path[-1], int) or parent in _MAPS or path[-1] in _OPTIONAL


def _walk(document: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, document
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _walk(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from _walk(value, (*path, index))


def _referenced(document: Any) -> set[str]:
    """Every string value of ``document``: the ids its fields name."""
    return {value for _, value in _walk(document) if isinstance(value, str)}


def _removals(document: Any) -> list[Path]:
    """What minimisation may remove: never the entry of an id the input names elsewhere.

    Removing the actor's principal (or the run's channel) would keep many changes
    alive for another reason (an unknown id is not active either) and hide the fact
    that decides them (``run agent: disabled``).
    """
    referenced = _referenced(document)
    return [
        path
        for path, _ in _walk(document)
        if _removable(path)
        and not (len(path) >= 2 and path[-2] in _MAPS and path[-1] in referenced)
    ]


def _without(document: Any, paths: Sequence[Path]) -> Any:
    result = _copy(document)
    chosen = sorted(set(paths), reverse=True)
    kept: list[Path] = []
    for path in chosen:
        if any(
            path[: len(other)] == other
            for other in chosen
            if other != path and len(other) < len(path)
        ):
            continue  # an ancestor goes too
        kept.append(path)
    for path in kept:
        parent = _get(result, path[:-1])
        del parent[path[-1]]
    return result


def _with(document: Any, path: Path, value: Any) -> Any:
    result = _copy(document)
    _get(result, path[:-1])[path[-1]] = value
    return result


def _alternatives(path: Path, value: Any) -> list[Any]:
    key = path[-1] if path else None
    parent = path[-2] if len(path) >= 2 else None
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if not isinstance(value, str) or key in _FIXED or (key == "kind" and parent == "resource"):
        return []
    if key in ("expires_at", "now"):
        return [time for time in _TIMES if time != value]
    if key in _COMPARED_IDS:
        return ["someone-else"]
    for values in _ENUMS.get(str(key), ()):
        if value in values:
            return [other for other in values if other != value]
    return []


def _render(path: Path) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def _keeps(
    entrypoint: str, input: Any, outcome: tuple[dict[str, Any], dict[str, Any]], change: Change
) -> bool:
    base, head = outcome
    return any(
        found.action == change.action
        and found.kind == change.kind
        and found.transition == change.transition
        for found in changes(entrypoint, input, base, head)
    )


def reduce(
    entrypoint: str,
    input: Any,
    change: Change,
    evaluate: Evaluator,
    *,
    rounds: int = 12,
) -> Reduced:
    """The minimal input showing ``change`` and the facts that matter in it.

    ``input`` must show ``change`` between the two servers behind ``evaluate``.
    """
    current = _copy(input)
    for _ in range(rounds):
        candidates = _removals(current)
        if not candidates:
            break
        trials = [_without(current, [path]) for path in candidates]
        outcomes = evaluate(entrypoint, trials)
        good = [
            path
            for path, trial, outcome in zip(candidates, trials, outcomes, strict=True)
            if _keeps(entrypoint, trial, outcome, change)
        ]
        if not good:
            break
        combined = _without(current, good)
        if _keeps(entrypoint, combined, evaluate(entrypoint, [combined])[0], change):
            current = combined
        else:
            current = _without(current, good[:1])
    mutations: list[tuple[Path, Any, Any]] = []  # (path, shown value, mutated input)
    for path, value in _walk(current):
        if _removable(path):
            # A scalar (an expiry, an owner id) is shown with its value, a structure as
            # "present".
            shown = "present" if isinstance(value, dict | list) else value
            mutations.append((path, shown, _without(current, [path])))
        for alternative in _alternatives(path, value):
            mutations.append((path, value, _with(current, path, alternative)))
    outcomes = evaluate(entrypoint, [current, *(mutated for _, _, mutated in mutations)])
    base, head = outcomes[0]
    matter: dict[Path, Any] = {}
    for (path, shown, mutated), outcome in zip(mutations, outcomes[1:], strict=True):
        if not _keeps(entrypoint, mutated, outcome, change):
            matter.setdefault(path, shown)
    # A removed element is reported only when none of its fields is more specific.
    facts = [
        Fact(_render(path), shown, path)
        for path, shown in matter.items()
        if not (
            shown == "present"
            and any(other != path and other[: len(path)] == path for other in matter)
        )
    ]
    return Reduced(input=current, facts=tuple(facts), base=base, head=head)
