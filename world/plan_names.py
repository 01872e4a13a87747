"""Pass one of the planner: every name and id of the world, before any reference.

Registering first lets references point forwards (a reply to a message of a later
thread). Names share one namespace because the returned mapping is flat.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from world.errors import join_path
from world.plan_state import KnownMessage, KnownPrincipal, KnownThread, PlanState

__all__ = ["register"]


def register(state: PlanState) -> None:
    """Give every entity its id and every name its place in the mapping."""
    for section, kind in (("people", "user"), ("agents", "agent"), ("apps", "app")):
        for index, item in enumerate(state.section(section)):
            path = join_path(section, index)
            principal_id = state.named(item, path, "principals", "handle", "handle")
            state.principals[item["handle"]] = KnownPrincipal(principal_id, kind)
    for index, item in enumerate(state.section("runners")):
        path = join_path("runners", index)
        state.runners[item["handle"]] = state.named(
            item, path, "runners", "handle", "runner handle"
        )
        for workspace_index, workspace in enumerate(item.get("workspaces", [])):
            workspace_path = join_path(path, "workspaces", workspace_index)
            workspace["_id"] = state.new_id(workspace, workspace_path, "session_bindings")
            if "key" in workspace:
                state.claim(workspace["key"], join_path(workspace_path, "key"), workspace["_id"])
    for index, item in enumerate(state.section("groups")):
        path = join_path("groups", index)
        state.groups[item["key"]] = state.named(item, path, "groups", "key", "group")
    for space_index, space in enumerate(state.section("spaces")):
        space_path = join_path("spaces", space_index)
        state.spaces[space["name"]] = state.named(space, space_path, "spaces", "name", "space")
        for channel_index, channel in enumerate(space.get("channels", [])):
            channel_path = join_path(space_path, "channels", channel_index)
            channel_id = state.new_id(channel, channel_path, "channels")
            full_name = f"{space['name']}/{channel['name']}"
            state.claim(full_name, join_path(channel_path, "name"), channel_id)
            state.channels[full_name] = channel_id
            main_id = uuid.uuid4()
            state.claim(f"{full_name}#main", join_path(channel_path, "name"), main_id)
            state.main_threads[full_name] = main_id
            _register_messages(state, channel, channel_path, main_id)
    for index, item in enumerate(state.section("threads")):
        path = join_path("threads", index)
        thread_id = state.new_id(item, path, "threads")
        state.claim(item["key"], join_path(path, "key"), thread_id)
        keys = _register_messages(state, item, path, thread_id)
        state.threads[item["key"]] = KnownThread(thread_id, frozenset(keys), item.get("parent"))
    for section, table in (
        ("grants", "grants"),
        ("sessions", "agent_sessions"),
        ("runs", "runs"),
        ("followups", "run_followups"),
    ):
        for index, item in enumerate(state.section(section)):
            path = join_path(section, index)
            item["_id"] = state.new_id(item, path, table)
            if "key" in item:
                state.claim(item["key"], join_path(path, "key"), item["_id"])


def _register_messages(
    state: PlanState, container: Mapping[str, Any], path: str, thread_id: uuid.UUID
) -> list[str]:
    keys: list[str] = []
    for index, item in enumerate(container.get("messages", [])):
        message_path = join_path(path, "messages", index)
        message_id = state.new_id(item, message_path, "messages")
        item["_id"] = message_id
        for attachment_index, attachment in enumerate(item.get("attachments", [])):
            attachment_path = join_path(message_path, "attachments", attachment_index)
            attachment["_id"] = state.new_id(attachment, attachment_path, "attachments")
        if "key" in item:
            state.claim(item["key"], join_path(message_path, "key"), message_id)
            state.messages[item["key"]] = KnownMessage(message_id, thread_id)
            keys.append(item["key"])
    return keys
