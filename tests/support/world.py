"""World fixtures for tests: load a world dict into the test database.

Worlds are plain dicts in the fixture format of ``examples/demo-world.yaml``; the
loader returns the map of keys and handles to ids.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from app.world import load_world_file, parse_world_yaml
from tests.support.services import REPO_ROOT

__all__ = ["demo_world", "load"]


def demo_world() -> dict[str, Any]:
    """A fresh copy of ``examples/demo-world.yaml`` as a dict."""
    text = (REPO_ROOT / "examples" / "demo-world.yaml").read_text(encoding="utf-8")
    return copy.deepcopy(parse_world_yaml(text))


def load(database_url: str, world: dict[str, Any], tmp_path: Any) -> dict[str, str]:
    """Load ``world`` into the database through the real loader; returns the id map."""
    path = tmp_path / f"world-{id(world)}.yaml"
    path.write_text(yaml.safe_dump(world, sort_keys=False), encoding="utf-8")
    return load_world_file(database_url, str(path))
