"""Pass two of the planner, for principals, runners (with workspaces) and groups."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Final

from world.errors import WorldError, join_path
from world.plan_state import PlanState, parse_time

__all__ = ["build_principals", "build_runners_and_groups"]

_TOKEN_KIND_BY_PRINCIPAL_KIND: Final = {"user": "session", "agent": "agent", "app": "app"}


def build_principals(state: PlanState) -> None:
    """People, agents and apps with their permissions and tokens."""
    for section, kind in (("people", "user"), ("agents", "agent"), ("apps", "app")):
        for index, item in enumerate(state.section(section)):
            path = join_path(section, index)
            principal_id = state.principals[item["handle"]].id
            owner_id = None
            if kind == "agent" and "owner" in item:
                owner_id = state.principal(item["owner"], join_path(path, "owner"), "user").id
            if kind == "agent" and "home_channel" in item:
                home = state.channel(item["home_channel"], join_path(path, "home_channel"))
                state.home_channels.append((principal_id, home))
            state.rows["principals"].append(
                {
                    "id": principal_id,
                    "kind": kind,
                    "handle": item["handle"],
                    "display_name": item.get("display_name", item["handle"]),
                    "email": item.get("email"),
                    "status": item.get("status", "active"),
                    "is_owner": bool(item.get("owner", False)) if kind == "user" else False,
                    "owner_user_id": owner_id,
                    "acting_for": item.get("acting_for", "optional"),
                }
            )
            for permission in item.get("permissions", []):
                state.rows["principal_permissions"].append(
                    {"principal_id": principal_id, "permission": permission}
                )
            state.token(item, path, _TOKEN_KIND_BY_PRINCIPAL_KIND[kind], principal_id=principal_id)


def build_runners_and_groups(state: PlanState) -> None:
    """Runners with their tokens and workspaces; groups with their members."""
    for index, item in enumerate(state.section("runners")):
        path = join_path("runners", index)
        runner_id = state.runners[item["handle"]]
        enrolled_at = item.get("enrolled_at")
        state.rows["runners"].append(
            {
                "id": runner_id,
                "handle": item["handle"],
                "enrollment_epoch": int(item.get("enrollment_epoch", 0)),
                "enrolled_at": (
                    parse_time(enrolled_at, join_path(path, "enrolled_at"))
                    if enrolled_at is not None
                    else None
                ),
            }
        )
        state.token(item, path, "runner", runner_id=runner_id)
        _build_workspaces(state, item, path, runner_id)
    for index, item in enumerate(state.section("groups")):
        path = join_path("groups", index)
        group_id = state.groups[item["key"]]
        state.rows["groups"].append({"id": group_id, "key": item["key"]})
        for member_index, handle in enumerate(item.get("members", [])):
            member = state.principal(handle, join_path(path, "members", member_index))
            state.rows["group_members"].append({"group_id": group_id, "principal_id": member.id})


def _build_workspaces(
    state: PlanState, runner: Mapping[str, Any], path: str, runner_id: uuid.UUID
) -> None:
    """Bindings of the runner's current enrolment; bound when a session id is given."""
    containers: dict[str, str] = {}
    sessions: dict[str, str] = {}
    if runner.get("workspaces") and "enrolled_at" not in runner:
        # A binding belongs to an enrolment; a runner that never enrolled holds none.
        raise WorldError(
            join_path(path, "workspaces"), "needs a runner that has enrolled (enrolled_at)"
        )
    for index, item in enumerate(runner.get("workspaces", [])):
        workspace_path = join_path(path, "workspaces", index)
        agent = state.principal(item["agent"], join_path(workspace_path, "agent"), "agent")
        for field_name, seen in (("container_name", containers), ("session_id", sessions)):
            if field_name not in item:
                continue
            first = seen.get(item[field_name])
            if first is not None:
                raise WorldError(
                    join_path(workspace_path, field_name),
                    f"already used by this runner at {first}",
                )
            seen[item[field_name]] = workspace_path
        state.rows["session_bindings"].append(
            {
                "id": item["_id"],
                "runner_id": runner_id,
                "enrollment_epoch": int(runner.get("enrollment_epoch", 0)),
                "container_name": item["container_name"],
                "session_id": item.get("session_id"),
                "agent_id": agent.id,
                "state": "bound" if "session_id" in item else "provisioned",
            }
        )
