"""World fixtures: load a whole world (people, spaces, messages, runs, ...) from YAML.

Used by ``python -m app world load FILE``, by ``make run`` (``examples/demo-world.yaml``)
and by tests; not imported by the serving app. The format is documented in
``examples/demo-world.yaml`` and described by the models of :mod:`world.schema`.
Modules: ``loader`` (read, validate, load), ``schema`` (models and generated JSON
Schema), ``validation`` (shape check), ``planner`` with ``plan_*`` (rows and ids);
rows are written by :mod:`repositories.bulk`.

Every failure is a :class:`WorldError` naming the offending path, such as
``spaces[0].channels[1].messages[2].author: unknown principal "bob"``. Messages name
handles and keys but never echo message content, display names or tokens.

The returned mapping (also printed by the CLI) maps names to ids as strings: people,
agents, apps and runners by handle; groups by key; spaces by name; channels by
``"space/channel"`` and a channel's main thread by ``"space/channel#main"``; messages,
grants, threads, sessions, runs, follow-ups and runner workspaces by their ``key``. All
these names share one namespace, so a space may not be named like a handle.
"""

from __future__ import annotations

from world.errors import WorldError
from world.loader import (
    load_world,
    load_world_data,
    load_world_file,
    parse_world_yaml,
    validate_world,
)
from world.plan_state import BASE_TIME, WorldPlan

__all__ = [
    "BASE_TIME",
    "WorldError",
    "WorldPlan",
    "load_world",
    "load_world_data",
    "load_world_file",
    "parse_world_yaml",
    "validate_world",
]
