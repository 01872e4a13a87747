"""Pass two of the planner, for spaces, channels, threads, messages and grants."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from world.errors import WorldError, join_path
from world.plan_state import STEP, PlanState, parse_time

__all__ = ["build_grants", "build_spaces", "build_threads"]

_ORIGIN_BY_KIND: Final = {"user": "human", "agent": "agent", "app": "app"}


def build_spaces(state: PlanState) -> None:
    """Spaces, their channels and members, each channel's main thread and its messages."""
    for space_index, space in enumerate(state.section("spaces")):
        space_path = join_path("spaces", space_index)
        space_id = state.spaces[space["name"]]
        state.rows["spaces"].append(
            {
                "id": space_id,
                "name": space["name"],
                "archived_at": state.loaded_at if space.get("archived") else None,
            }
        )
        for channel_index, channel in enumerate(space.get("channels", [])):
            channel_path = join_path(space_path, "channels", channel_index)
            full_name = f"{space['name']}/{channel['name']}"
            channel_id = state.channels[full_name]
            operator_id = None
            if "operator" in channel:
                operator_id = state.principal(
                    channel["operator"], join_path(channel_path, "operator"), "agent"
                ).id
            state.rows["channels"].append(
                {
                    "id": channel_id,
                    "space_id": space_id,
                    "name": channel["name"],
                    "kind": channel.get("kind", "regular"),
                    "archived_at": state.loaded_at if channel.get("archived") else None,
                    "history_backfill_limit": channel.get("history_backfill_limit"),
                    "operator_agent_id": operator_id,
                    "allow_mentioned_agents": bool(channel.get("allow_mentioned_agents", False)),
                    "auto_thread": bool(channel.get("auto_thread", False)),
                }
            )
            for member_index, handle in enumerate(channel.get("members", [])):
                member = state.principal(handle, join_path(channel_path, "members", member_index))
                state.rows["channel_members"].append(
                    {"channel_id": channel_id, "principal_id": member.id}
                )
            main_id = state.main_threads[full_name]
            state.rows["threads"].append(
                {
                    "id": main_id,
                    "channel_id": channel_id,
                    "kind": "main",
                    "parent_message_id": None,
                    "operator_agent_id": None,
                }
            )
            _build_messages(state, channel, channel_path, main_id)


def build_threads(state: PlanState) -> None:
    """Threads with their messages; a parent message is set after all messages exist."""
    parents: dict[str, str] = {}
    for index, item in enumerate(state.section("threads")):
        path = join_path("threads", index)
        thread = state.threads[item["key"]]
        state.channel(item["channel"], join_path(path, "channel"))
        operator_id = None
        if "operator" in item:
            operator_id = state.principal(item["operator"], join_path(path, "operator"), "agent").id
        if thread.parent is not None:
            parent_path = join_path(path, "parent")
            parent = state.message(thread.parent, parent_path)
            if thread.parent in thread.message_keys:
                raise WorldError(parent_path, "must not be a message of the thread itself")
            if thread.parent in parents:
                raise WorldError(
                    parent_path,
                    f'message "{thread.parent}" is already the parent of {parents[thread.parent]}',
                )
            parents[thread.parent] = path
            state.parents.append((thread.id, parent.id))
        state.rows["threads"].append(
            {
                "id": thread.id,
                "channel_id": state.channels[item["channel"]],
                "kind": item.get("kind", "thread"),
                # Set after all messages exist (the parent may be in a later thread).
                "parent_message_id": None,
                "operator_agent_id": operator_id,
            }
        )
        _build_messages(state, item, path, thread.id)


def _build_messages(
    state: PlanState, container: Mapping[str, Any], path: str, thread_id: uuid.UUID
) -> None:
    previous: datetime | None = None
    for index, item in enumerate(container.get("messages", [])):
        message_path = join_path(path, "messages", index)
        author = state.principal(item["author"], join_path(message_path, "author"))
        origin = item.get("origin", _ORIGIN_BY_KIND[author.kind])
        if "system_code" in item and origin != "system":
            raise WorldError(
                join_path(message_path, "system_code"), "is only allowed with origin system"
            )
        if "at" in item:
            created_at = parse_time(item["at"], join_path(message_path, "at"))
            if previous is not None and created_at <= previous:
                raise WorldError(
                    join_path(message_path, "at"),
                    "must be later than the previous message of the thread",
                )
        else:
            created_at = state.cursor
        # The cursor only moves forwards, so an implicit time after an explicit one
        # is still later than everything before it.
        state.cursor = max(state.cursor, created_at) + STEP
        previous = created_at
        if "client_request_id" in item:
            request_path = join_path(message_path, "client_request_id")
            request = (author.id, item["client_request_id"])
            first = state.client_requests.get(request)
            if first is not None:
                raise WorldError(
                    request_path,
                    f"duplicate client_request_id for this author (already used at {first})",
                )
            state.client_requests[request] = request_path
        if "reply_to" in item:
            reply_path = join_path(message_path, "reply_to")
            target = state.message(item["reply_to"], reply_path)
            if target.id == item["_id"]:
                raise WorldError(reply_path, "a message cannot reply to itself")
            state.replies.append((item["_id"], target.id))
        deleted = bool(item.get("deleted", False))
        state.rows["messages"].append(
            {
                "id": item["_id"],
                "thread_id": thread_id,
                "thread_seq": index + 1,
                "author_principal_id": author.id,
                "origin": origin,
                "kind": item.get("kind", "system" if origin == "system" else "text"),
                # A tombstone keeps no content (CHECK deleted_has_no_content).
                "content_md": "" if deleted else item.get("content", ""),
                "reply_to_message_id": None,
                "system_code": item.get("system_code"),
                "client_request_id": item.get("client_request_id"),
                "created_at": created_at,
                "deleted_at": max(state.loaded_at, created_at) if deleted else None,
            }
        )
        for position, attachment in enumerate(item.get("attachments", [])):
            file_id = attachment.get("file_id")
            state.rows["attachments"].append(
                {
                    "id": attachment["_id"],
                    "message_id": item["_id"],
                    "position": position,
                    "file_id": uuid.UUID(file_id) if file_id else uuid.uuid4(),
                    "original_name": attachment["original_name"],
                    "mime_type": attachment["mime_type"],
                    "size_bytes": int(attachment["size_bytes"]),
                    "scan_status": attachment["scan_status"],
                    "transcript": attachment.get("transcript"),
                }
            )


def build_grants(state: PlanState) -> None:
    """Grants of a principal or group on a space or channel."""
    for index, item in enumerate(state.section("grants")):
        path = join_path("grants", index)
        subject: str = item["subject"]
        subject_path, target_path = join_path(path, "subject"), join_path(path, "target")
        subject_principal = subject_group = None
        if subject.startswith("group:"):
            subject_group = state.group(subject.removeprefix("group:"), subject_path)
        else:
            subject_principal = state.principal(subject, subject_path).id
        target: str = item["target"]
        target_space = target_channel = None
        if target.startswith("space:"):
            target_space = state.space(target.removeprefix("space:"), target_path)
        else:
            target_channel = state.channel(target.removeprefix("channel:"), target_path)
        expires_at = item.get("expires_at")
        state.rows["grants"].append(
            {
                "id": item["_id"],
                "subject_principal_id": subject_principal,
                "subject_group_id": subject_group,
                "target_space_id": target_space,
                "target_channel_id": target_channel,
                "level": item["level"],
                "expires_at": (
                    parse_time(expires_at, join_path(path, "expires_at"))
                    if expires_at is not None
                    else None
                ),
            }
        )
