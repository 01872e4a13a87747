"""Provisioning workspaces: decided in Rego as agent.workspace.provision."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import pytest

from tests.support.comms_world import CommsWorld

pytestmark = pytest.mark.integration

Start = Callable[..., CommsWorld]


def test_the_agents_owner_provisions_and_the_server_mints_the_container(
    start_comms: Start,
) -> None:
    world = start_comms()

    first = world.client("tok-robin").post(
        f"/api/v1/agents/{world.ids['lotse']}/workspaces", json={"runner_id": world.ids["runner-a"]}
    )
    second = world.client("tok-robin").post(
        f"/api/v1/agents/{world.ids['lotse']}/workspaces", json={"runner_id": world.ids["runner-a"]}
    )

    assert first.status_code == 201
    body = first.json()
    assert body["agent_id"] == world.ids["lotse"]
    assert body["runner_id"] == world.ids["runner-a"]
    assert body["state"] == "provisioned"
    assert re.fullmatch(r"ws-[0-9a-f]{32}", body["container_name"])
    assert second.json()["container_name"] != body["container_name"]


@pytest.mark.parametrize(
    ("token", "agent", "runner", "status", "reason"),
    [
        ("tok-alex", "lotse", "runner-a", 403, "not_agent_owner"),
        ("tok-lotse", "lotse", "runner-a", 403, "subject_kind_not_allowed"),
        ("tok-importer", "lotse", "runner-a", 403, "subject_kind_not_allowed"),
        ("tok-robin", str(uuid.UUID(int=7)), "runner-a", 404, None),
        ("tok-robin", "sam", "runner-a", 404, None),
        ("tok-robin", "lotse", str(uuid.UUID(int=9)), 404, None),
        ("tok-robin", "lotse", "runner-new", 409, None),
        ("tok-runner-a", "lotse", "runner-a", 401, None),
    ],
)
def test_provisioning_is_refused_as_the_policy_and_the_runner_state_say(
    start_comms: Start, token: str, agent: str, runner: str, status: int, reason: str | None
) -> None:
    world = start_comms()

    response = world.client(token).post(
        f"/api/v1/agents/{world.ids.get(agent, agent)}/workspaces",
        json={"runner_id": world.ids.get(runner, runner)},
    )

    assert response.status_code == status, response.text
    assert response.json().get("reason") == reason


def test_a_disabled_agent_gets_no_workspace(start_comms: Start) -> None:
    world = start_comms()
    robin = world.client("tok-robin")
    robin.patch(f"/api/v1/admin/principals/{world.ids['lotse']}", json={"status": "disabled"})

    response = robin.post(
        f"/api/v1/agents/{world.ids['lotse']}/workspaces", json={"runner_id": world.ids["runner-a"]}
    )

    assert response.status_code == 403
    assert response.json()["reason"] == "agent_inactive"
