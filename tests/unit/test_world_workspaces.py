"""World fixtures: runner enrolments, workspaces and bound sessions (validation only)."""

from __future__ import annotations

from typing import Any

import pytest

from world import WorldError, validate_world


def _world(**runner: Any) -> dict[str, Any]:
    return {
        "people": [{"handle": "robin", "owner": True}],
        "agents": [{"handle": "lotse", "owner": "robin"}],
        "runners": [
            {
                "handle": "runner-1",
                "enrollment_epoch": 2,
                "enrolled_at": "2025-01-01T08:00:00Z",
                **runner,
            }
        ],
    }


def _rows(plan: Any) -> list[dict[str, Any]]:
    return [row for table, rows in plan.inserts if table == "session_bindings" for row in rows]


def test_workspaces_become_bindings_of_the_current_enrolment() -> None:
    world = _world(
        workspaces=[
            {"key": "w1", "agent": "lotse", "container_name": "ws-1", "session_id": "s-1"},
            {"agent": "lotse", "container_name": "ws-2"},
        ]
    )

    plan = validate_world(world)
    rows = _rows(plan)

    assert [
        (r["container_name"], r["session_id"], r["state"], r["enrollment_epoch"]) for r in rows
    ] == [
        ("ws-1", "s-1", "bound", 2),
        ("ws-2", None, "provisioned", 2),
    ]
    assert plan.mapping["w1"] == str(rows[0]["id"])
    assert rows[0]["agent_id"] == rows[1]["agent_id"]


@pytest.mark.parametrize(
    ("runner", "path", "fragment"),
    [
        (
            {"workspaces": [{"agent": "robin", "container_name": "ws-1"}]},
            "runners[0].workspaces[0].agent",
            "not an agent",
        ),
        (
            {"workspaces": [{"agent": "ghost", "container_name": "ws-1"}]},
            "runners[0].workspaces[0].agent",
            "unknown agent",
        ),
        (
            {
                "workspaces": [
                    {"agent": "lotse", "container_name": "ws-1"},
                    {"agent": "lotse", "container_name": "ws-1"},
                ]
            },
            "runners[0].workspaces[1].container_name",
            "already used",
        ),
        (
            {
                "workspaces": [
                    {"agent": "lotse", "container_name": "ws-1", "session_id": "s"},
                    {"agent": "lotse", "container_name": "ws-2", "session_id": "s"},
                ]
            },
            "runners[0].workspaces[1].session_id",
            "already used",
        ),
        (
            {"workspaces": [{"agent": "lotse", "container_name": "ws 1"}]},
            "runners[0].workspaces[0].container_name",
            "letters, digits",
        ),
    ],
)
def test_invalid_workspaces_are_rejected_with_a_path(
    runner: dict[str, Any], path: str, fragment: str
) -> None:
    with pytest.raises(WorldError) as raised:
        validate_world(_world(**runner))

    assert raised.value.path == path
    assert fragment in raised.value.message


def test_a_runner_that_never_enrolled_holds_no_workspace() -> None:
    world = {
        "agents": [{"handle": "lotse"}],
        "runners": [{"handle": "r", "workspaces": [{"agent": "lotse", "container_name": "w"}]}],
    }

    with pytest.raises(WorldError) as raised:
        validate_world(world)

    assert raised.value.path == "runners[0].workspaces"
