"""Ids in one form: every ``format: uuid`` value of a request body in lower case.

A UUID is case-insensitive (RFC 9562), but the policies compare ids as strings and
PostgreSQL returns them in lower case, so ``3F1C...`` and ``3f1c...`` must become one
id before anything compares them. The request validators accept an id in any case and
hand it on lower-cased: path and query parameters in
:class:`app.http.validation.ProblemParameterValidator`, body fields here.

:func:`id_plan` reads once per schema where its ids are (properties, array items,
open members, ``allOf`` parts; never inside ``anyOf``/``oneOf``, where a member's
meaning depends on the branch: a contract test checks that no request body has an id
there) and :func:`lower_ids` applies the plan to a validated body.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["IdPlan", "id_plan", "lower_ids", "lower_ids_of"]


@dataclass
class IdPlan:
    """Where the ids of one schema are.

    Attributes:
        is_id: the value itself is an id.
        properties: plans of the named members that hold ids.
        items: the plan of every array item, when items hold ids.
        additional: the plan of every undeclared member, when they hold ids.
        declared: the names of the declared members (with ids or without).
    """

    is_id: bool = False
    properties: dict[str, IdPlan] = field(default_factory=dict)
    declared: frozenset[str] = frozenset()
    items: IdPlan | None = None
    additional: IdPlan | None = None

    @property
    def empty(self) -> bool:
        """Whether no id can be reached through this plan."""
        return not (self.is_id or self.properties or self.items or self.additional)


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    while isinstance(schema, Mapping) and "$ref" in schema:
        target: Any = root
        for part in str(schema["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        schema = target
    return schema


def id_plan(schema: Any, root: Mapping[str, Any] | None = None) -> IdPlan | None:
    """Where ``schema`` holds ids, or ``None`` when it holds none.

    Local ``$ref``s resolve against ``root`` (``schema`` itself by default); recursive
    schemas end where they repeat.
    """
    return _plan(schema, root if root is not None else schema, frozenset())


def _plan(schema: Any, root: Mapping[str, Any], active: frozenset[int]) -> IdPlan | None:
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping) or id(schema) in active:
        return None
    active = active | {id(schema)}
    plan = IdPlan(is_id=schema.get("format") == "uuid")
    for part in schema.get("allOf", []):
        sub = _plan(part, root, active)
        if sub is not None:
            plan.is_id = plan.is_id or sub.is_id
            plan.properties.update(sub.properties)
            plan.declared |= sub.declared
            plan.items = plan.items or sub.items
            plan.additional = plan.additional or sub.additional
    plan.declared |= frozenset(schema.get("properties", {}))
    for name, member in schema.get("properties", {}).items():
        sub = _plan(member, root, active)
        if sub is not None:
            plan.properties[name] = sub
    if isinstance(schema.get("items"), Mapping):
        plan.items = _plan(schema["items"], root, active)
    if isinstance(schema.get("additionalProperties"), Mapping):
        plan.additional = _plan(schema["additionalProperties"], root, active)
    return None if plan.empty else plan


def _lowered(value: Any, plan: IdPlan) -> tuple[Any, bool]:
    if plan.is_id and isinstance(value, str):
        lowered = value.lower()
        return lowered, lowered != value
    return value, lower_ids(plan, value)


def lower_ids(plan: IdPlan, value: Any) -> bool:
    """Lower-case the ids of ``value`` in place where ``plan`` puts them; True if any changed."""
    changed = False
    if isinstance(value, dict):
        for name in list(value):
            sub = plan.properties.get(name)
            if sub is None and name not in plan.declared:
                sub = plan.additional
            if sub is not None:
                value[name], moved = _lowered(value[name], sub)
                changed = changed or moved
    elif isinstance(value, list) and plan.items is not None:
        for index, item in enumerate(value):
            value[index], moved = _lowered(item, plan.items)
            changed = changed or moved
    return changed


_plans: dict[int, tuple[Any, IdPlan | None]] = {}
_lock = threading.Lock()


def lower_ids_of(schema: Mapping[str, Any], body: Any) -> bool:
    """:func:`lower_ids` with the plan of ``schema`` (read once per schema object)."""
    with _lock:
        cached = _plans.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = (schema, id_plan(schema))
            _plans[id(schema)] = cached
    plan = cached[1]
    return plan is not None and lower_ids(plan, body)
