"""The world of the comms relay integration tests and a small runner driver.

Built on :func:`tests.support.run_context_world.base_world` (people robin, alex, sam,
writer; agents lotse and texter, owner robin; channels support/general,
support/other, marketing/campaigns), plus:

* lotse's home channel is ``support/general`` and lotse is a member there (write);
  lotse has a read grant on ``marketing/campaigns`` and nothing on
  ``support/other``; texter's home channel is ``marketing/campaigns``;
* three messages in support/general for the ordering case: alex asks, sam dissents,
  writer replies to alex;
* ``runner-a`` (token ``tok-runner-a``, enrolled, epoch 1) with the bound workspaces
  ``w1`` (lotse, container ``ws-a1``, session ``sess-1``) and ``w2`` (lotse,
  container ``ws-a2``, session ``sess-2``) and the provisioned workspace ``w3``
  (lotse, container ``ws-a3``, no session yet);
* ``runner-b`` (token ``tok-runner-b``, enrolled) with ``wb`` (texter, container
  ``ws-b1``, session ``sess-b1``);
* ``runner-new`` (token ``tok-runner-new``) that never enrolled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

from tests.support.client import ApiClient
from tests.support.run_context_world import GENERAL, base_world, channel, msg

__all__ = ["CommsWorld", "comms_world"]

ENROLLED_AT = "2025-01-01T08:00:00Z"


def comms_world() -> dict[str, Any]:
    """A fresh world for the relay tests (see the module docstring)."""
    world = base_world()
    for agent in world["agents"]:
        if agent["handle"] == "lotse":
            agent["home_channel"] = GENERAL
        if agent["handle"] == "texter":
            agent["home_channel"] = "marketing/campaigns"
    general = channel(world, GENERAL)
    general["members"] = ["lotse"]
    general["messages"].extend(
        [
            msg("q1", "alex", "Should we roll back the export job?"),
            msg("q2", "sam", "I disagree, a rollback loses a day of data."),
            msg("q3", "writer", "Agreed with Alex, roll back now.", reply_to="q1"),
        ]
    )
    world["grants"].append(
        {
            "key": "g-lotse-campaigns",
            "subject": "lotse",
            "target": "channel:marketing/campaigns",
            "level": "read",
        }
    )
    world["runners"] = [
        {
            "handle": "runner-a",
            "token": "tok-runner-a",
            "enrollment_epoch": 1,
            "enrolled_at": ENROLLED_AT,
            "workspaces": [
                {"key": "w1", "agent": "lotse", "container_name": "ws-a1", "session_id": "sess-1"},
                {"key": "w2", "agent": "lotse", "container_name": "ws-a2", "session_id": "sess-2"},
                {"key": "w3", "agent": "lotse", "container_name": "ws-a3"},
            ],
        },
        {
            "handle": "runner-b",
            "token": "tok-runner-b",
            "enrollment_epoch": 1,
            "enrolled_at": ENROLLED_AT,
            "workspaces": [
                {"key": "wb", "agent": "texter", "container_name": "ws-b1", "session_id": "sess-b1"}
            ],
        },
        {"handle": "runner-new", "token": "tok-runner-new"},
    ]
    return world


@dataclass
class CommsWorld:
    """The loaded world and the running service, driven as runners and people."""

    service: Any
    ids: dict[str, str]
    database_url: str

    def client(self, token: str | None) -> ApiClient:
        """A validating client with ``token``."""
        return ApiClient(self.service.base_url, token)

    def runner(self, handle: str = "runner-a") -> ApiClient:
        """A validating client with the runner's token."""
        return self.client(f"tok-{handle}")

    def relay(
        self, session_id: str, call: dict[str, Any], runner: str = "runner-a"
    ) -> requests.Response:
        """POST /runner/comms:relay as ``runner``."""
        return self.runner(runner).post(
            "/api/v1/runner/comms:relay", json={"session_id": session_id, "call": call}
        )

    def relay_ok(
        self, session_id: str, call: dict[str, Any], runner: str = "runner-a"
    ) -> dict[str, Any]:
        """The 200 body of a relayed call."""
        response = self.relay(session_id, call, runner)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert body["call_id"] == call["call_id"]
        return body

    def post_call(self, call_id: str, key: str, content: str, **extra: Any) -> dict[str, Any]:
        """A ``post_message`` call (``channel_id`` absent unless given)."""
        return {
            "call_id": call_id,
            "post_message": {"content_md": content, "client_request_id": key, **extra},
        }

    def list_call(self, call_id: str, **args: Any) -> dict[str, Any]:
        """A ``list_messages`` call."""
        return {"call_id": call_id, "list_messages": args}

    def messages(self, path: str = GENERAL, as_: str = "tok-robin") -> list[dict[str, Any]]:
        """The main-thread page of ``path`` as read by a person over the messages API."""
        response = self.client(as_).get(f"/api/v1/channels/{self.ids[path]}/messages")
        assert response.status_code == 200, response.text
        items: list[dict[str, Any]] = response.json()["items"]
        return items
