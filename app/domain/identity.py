"""Who a request acts as: the authenticated principal or runner, and an account.

Plain values (ids and states only, never handles or names), built by the
repositories from the token tables and read by the HTTP layer, the handlers and the
use cases; they live here so that none of those imports a repository for them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

__all__ = ["Account", "Actor", "RunnerIdentity", "TokenHolder"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The authenticated principal of a request: ids and states only, no names."""

    id: str
    kind: str
    status: str
    is_owner: bool


@dataclass(frozen=True, slots=True)
class RunnerIdentity:
    """An authenticated runner: its id and current enrolment (never its handle)."""

    id: str
    enrollment_epoch: int
    enrolled_at: dt.datetime | None

    @property
    def enrolled(self) -> bool:
        """Whether the runner has enrolled at least once."""
        return self.enrolled_at is not None


TokenHolder = Actor | RunnerIdentity


@dataclass(frozen=True, slots=True)
class Account:
    """A principal as an actor, with its owner and home channel (agents only).

    Workspace provisioning reads the owner; the comms relay acts as the actor and
    falls back to the home channel.
    """

    actor: Actor
    owner_user_id: str | None
    home_channel_id: str | None
