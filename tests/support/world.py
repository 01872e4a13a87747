"""World fixtures for tests: load a world dict into the test database.

Worlds are plain dicts in the fixture format of ``examples/demo-world.yaml``; the
loader returns the map of keys and handles to ids.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from app.world import load_world, parse_world_yaml
from repositories import make_engine
from tests.support.services import REPO_ROOT

__all__ = ["demo_world", "load"]


@lru_cache(maxsize=1)
def _demo_world() -> dict[str, Any]:
    text = (REPO_ROOT / "examples" / "demo-world.yaml").read_text(encoding="utf-8")
    return parse_world_yaml(text)


def demo_world() -> dict[str, Any]:
    """A fresh copy of ``examples/demo-world.yaml`` as a dict (parsed once)."""
    return copy.deepcopy(_demo_world())


def load(database_url: str, world: dict[str, Any]) -> dict[str, str]:
    """Load ``world`` into the database through the real loader; returns the id map.

    In-process, in one transaction, without a YAML file in between: the loader's
    validation and writes are the same as ``python -m app world load``.
    """
    engine = make_engine(database_url, pool_size=1)
    try:
        with engine.begin() as conn:
            return load_world(conn, world)
    finally:
        engine.dispose()
