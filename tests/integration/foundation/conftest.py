"""Helpers of the foundation integration tests: an extended demo world.

The world is ``examples/demo-world.yaml`` plus:

* ``reader``: an active person with only a read grant on ``support/general``;
* ``newbie``: an active person without any grant;
* ``support/archive``: an archived channel with one message.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.world import add_channel, add_grant, add_person, demo_world, load, msg


def extended_world() -> dict[str, Any]:
    """The demo world with a read-only person, a person without grants, an archive."""
    world = demo_world()
    add_person(world, "reader")
    add_person(world, "newbie")
    add_channel(
        world,
        "support",
        "archive",
        archived=True,
        messages=[msg("a1", "sam", "Archived note.")],
    )
    add_grant(world, "reader", "channel:support/general", "read", key="g-reader-general")
    return world


@pytest.fixture
def ids(database_url: str) -> dict[str, str]:
    """The extended world loaded into this test's database; handle/key -> id."""
    return load(database_url, extended_world())


def messages_path(channel_id: str) -> str:
    """The messages collection of a channel."""
    return f"/api/v1/channels/{channel_id}/messages"
