"""The session-context family: surfaces, tools and permissions from the policies' registry."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.policy import resources
from app.policy.gateway import SESSION_CONTEXT
from app.policy.inputs import IntentRef, SessionContextInput
from policydiff.corpus import Record
from policydiff.families.base import (
    ACTORS,
    Family,
    Generator,
    fact_bundle,
    generated_record,
    principal_facts,
)


def read_registry(policies: Path) -> dict[str, Any]:
    """The session-context registry of ``policies`` (surfaces, tools, permissions)."""
    path = policies / "sessioncontext" / "registry" / "data.json"
    if not path.exists():
        return {"permissions": {}, "surfaces": {}, "tools": {}}
    registry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return registry


def read_requirements(policies: Path) -> dict[str, str]:
    """The requester level per relayed action (``authz/actingfor/requirements``)."""
    path = policies / "authz" / "actingfor" / "requirements" / "data.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    levels = data.get("requester_levels") if isinstance(data, dict) else None
    if not isinstance(levels, dict):
        return {}
    return {str(action): str(level) for action, level in levels.items()}


def _intents(registry: dict[str, Any], surfaces: Sequence[str]) -> list[tuple[str, IntentRef]]:
    intents: list[tuple[str, IntentRef]] = []
    for name, tool in sorted(registry.get("tools", {}).items()):
        plane = tool.get("plane", "server") if isinstance(tool, dict) else "server"
        other = "client" if plane == "server" else "server"
        if name == "navigate_to":
            for surface in surfaces:
                intents.append(
                    (f"navigate_to {surface}", {"name": name, "plane": plane, "target": surface})
                )
        else:
            intents.append((name, {"name": name, "plane": plane}))
        intents.append((f"{name} on the {other} plane", {"name": name, "plane": other}))
    intents.append(("forged_admin_tool", {"name": "forged_admin_tool", "plane": "server"}))
    return intents


def _surfaces(registry: dict[str, Any]) -> list[str]:
    return [*sorted(registry.get("surfaces", {})), "unknown.surface"]


def _session_context(g: Generator) -> Iterator[Record]:
    """sessioncontext/resolve: caller, its permissions and one intent per record."""
    surfaces = _surfaces(g.registry)
    permissions = sorted(g.registry.get("permissions", {}))
    permission_sets: dict[str, list[str]] = {"none": []}
    for permission in permissions:
        permission_sets[permission] = [permission]
    permission_sets["all"] = permissions
    for caller, status, held, (intent_name, intent) in itertools.product(
        ACTORS, g.statuses, permission_sets, _intents(g.registry, surfaces)
    ):
        actor, kind, owner = ACTORS[caller]
        request: SessionContextInput = {
            "action": "session_context.resolve",
            "actor": actor,
            "resource": resources.instance(),
            "facts": fact_bundle(
                {
                    actor: principal_facts(
                        kind, status, owner=owner, permissions=permission_sets[held]
                    )
                }
            ),
            "surfaces": surfaces,
            "intents": [intent],
        }
        yield generated_record(
            SESSION_CONTEXT,
            request,
            "session context: intents",
            caller=caller,
            status=status,
            permissions=held,
            intent=intent_name,
        )


def _session_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """A person holding every registry permission, proposing every intent at once."""
    surfaces = _surfaces(g.registry)
    permissions = sorted(g.registry.get("permissions", {}))
    request: SessionContextInput = {
        "action": "session_context.resolve",
        "actor": "alex",
        "resource": resources.instance(),
        "facts": fact_bundle({"alex": principal_facts("user", permissions=permissions)}),
        "surfaces": surfaces,
        "intents": [intent for _, intent in _intents(g.registry, surfaces)],
    }
    yield SESSION_CONTEXT, request


# In the order of the generated corpus.
FAMILIES = (Family("session context", _session_context, _session_pivots),)
