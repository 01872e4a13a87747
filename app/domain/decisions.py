"""What an authorization decision says: allowed or not, why, and for whose rights.

Pure types (no I/O): the policy gateway reads OPA's answer into a :class:`Decision`
(``app/policy/results.py`` validates it), the use cases act on it and the audit
repository writes denials from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["OWN", "ActingFor", "ActingForMode", "Decision"]


class ActingForMode(StrEnum):
    """Which rights decided a call: the actor's own, or also a bound run's requester's."""

    OWN = "own"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class ActingFor:
    """The ``acting_for`` of a decision: the mode, the run, the sides that failed.

    Attributes:
        mode: ``own`` or ``run``.
        run_id: The bound run in mode ``run``; ``None`` in mode ``own``.
        failed: In mode ``run`` of a message decision, the sides (``agent``,
            ``requester``) that do not allow the call; empty otherwise.
    """

    mode: ActingForMode
    run_id: str | None = None
    failed: tuple[str, ...] = ()

    def view(self) -> dict[str, Any]:
        """``{"mode": "own"}`` or ``{"mode": "run", "run_id"}``: what a relayed answer says."""
        if self.run_id is None:
            return {"mode": self.mode.value}
        return {"mode": self.mode.value, "run_id": self.run_id}


OWN = ActingFor(ActingForMode.OWN)


@dataclass(frozen=True, slots=True)
class Decision:
    """OPA's answer to ``data.authz.decision``.

    Attributes:
        allow: Whether the action is allowed.
        reason: Machine-readable reason from the closed list
            (``app.policy.results.REASONS``, pinned against the policies).
        status: 200 for an allow, 403 (visible, not allowed) or 404 (invisible).
        revision: The revision of the policy bundle that decided (OPA's provenance);
            ``None`` when the sidecar serves policies that are not a bundle with a
            revision (``make run``'s working tree, the tests).
        acting_for: The mode the policy named for a request that carried
            ``input.acting_for`` (a relayed call of a session with a bound run);
            ``None`` when it named none.
    """

    allow: bool
    reason: str
    status: int
    revision: str | None = None
    acting_for: ActingFor | None = None

    @property
    def mode(self) -> str:
        """``run`` when the decision was taken for a bound run's requester too, else ``own``."""
        return (self.acting_for or OWN).mode.value

    @property
    def run_id(self) -> str | None:
        """The run the decision was taken for (mode ``run``), else ``None``."""
        return None if self.acting_for is None else self.acting_for.run_id
