"""The world of the acting-for tests (issue 21) and a driver around it.

The demo world ``examples/demo-world.yaml`` already holds the scenario: Alex (trigger
on the space ``support``) started the run ``r1`` of Lotse in ``support/general``;
Lotse is also a member of ``finance/ledger``, where Alex has nothing; Scribe
(``acting_for: required``) has the run ``r2``, also started by Alex; runner
``runner-1`` holds the bound sessions ``session-demo-1`` (Lotse) and
``session-demo-scribe`` (Scribe). This module adds ``runner-2`` (token
``tok-runner-2``, enrolled) with a bound session ``session-r2`` of Lotse, for the
"another runner's session" cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

from tests.support.comms_world import ENROLLED_AT, CommsWorld
from tests.support.world import demo_world

__all__ = ["LEDGER", "ActingForWorld", "acting_for_world"]

LEDGER = "finance/ledger"
GENERAL = "support/general"


def acting_for_world() -> dict[str, Any]:
    """The demo world plus ``runner-2`` (see the module docstring)."""
    world = demo_world()
    world["runners"].append(
        {
            "handle": "runner-2",
            "token": "tok-runner-2",
            "enrollment_epoch": 1,
            "enrolled_at": ENROLLED_AT,
            "workspaces": [
                {
                    "key": "w-r2",
                    "agent": "lotse",
                    "container_name": "ws-r2",
                    "session_id": "session-r2",
                }
            ],
        }
    )
    return world


@dataclass
class ActingForWorld(CommsWorld):
    """The comms driver with runner-1 by default, run binding and the owner's admin calls."""

    def relay_as(
        self, session_id: str, call: dict[str, Any], runner: str = "runner-1"
    ) -> dict[str, Any]:
        """The 200 body of a relayed call through ``runner`` (default runner-1)."""
        return self.relay_ok(session_id, call, runner)

    def bind(self, session_id: str, run: str, runner: str = "runner-1") -> requests.Response:
        """PUT /runner/sessions/{session_id}/run with the run's id (a key or an id)."""
        return self.runner(runner).request(
            "PUT",
            f"/api/v1/runner/sessions/{session_id}/run",
            json={"run_id": self.ids.get(run, run)},
        )

    def unbind(self, session_id: str, runner: str = "runner-1") -> requests.Response:
        """DELETE /runner/sessions/{session_id}/run."""
        return self.runner(runner).delete(f"/api/v1/runner/sessions/{session_id}/run")

    def admin(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """An admin facts API call as Robin (instance owner); must succeed."""
        response = self.client("tok-robin").request(method, f"/api/v1/admin/{path}", **kwargs)
        assert response.status_code in (200, 201, 204), response.text
        return response

    def set_status(self, handle: str, status: str) -> None:
        """Change a principal's status through the admin API."""
        self.admin("PATCH", f"principals/{self.ids[handle]}", json={"status": status})

    def end_run(self, run: str, state: str = "succeeded") -> None:
        """Move a run to an ended state through the admin API."""
        self.admin("PATCH", f"runs/{self.ids[run]}", json={"state": state})
