"""Fixtures of the run-context integration tests: load a seed world, start the service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.run_context_world import RunContextWorld
from tests.support.world import load

pytestmark = pytest.mark.integration


@pytest.fixture
def start_world(
    make_service: Callable[..., Any], database_url: str
) -> Callable[..., RunContextWorld]:
    """Load ``world`` through the real loader, then start the app with config overrides.

    Example: ``start_world(world, **{"agent.context_max_bytes": 200})``.
    """

    def start(world: dict[str, Any], **config: Any) -> RunContextWorld:
        ids = load(database_url, world)
        service = make_service(**config)
        return RunContextWorld(service=service, ids=dict(ids), database_url=database_url)

    return start
