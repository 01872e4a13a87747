"""Fixtures of the comms relay tests: load the comms world, start the service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.comms_world import CommsWorld, comms_world
from tests.support.world import load

pytestmark = pytest.mark.integration


@pytest.fixture
def start_comms(make_service: Callable[..., Any], database_url: str) -> Callable[..., CommsWorld]:
    """Load the comms world (or ``world``) and start the app with config overrides."""

    def start(world: dict[str, Any] | None = None, **config: Any) -> CommsWorld:
        ids = load(database_url, world if world is not None else comms_world())
        return CommsWorld(service=make_service(**config), ids=dict(ids), database_url=database_url)

    return start
