"""The single JSON representation of a message and of a principal reference.

Pure shaping (no I/O): the messages API and the run context both build their
elements from these functions, so an author never carries an e-mail address and an
absent optional field is omitted rather than null.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StoredMessage", "message_view", "principal_ref"]


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message as stored, with its author reference and attachments."""

    id: str
    channel_id: str
    thread_id: str
    thread_seq: int
    author_id: str
    author_kind: str
    author_handle: str
    author_display_name: str
    origin: str
    kind: str
    content_md: str
    created_at: dt.datetime
    reply_to_message_id: str | None
    parent_message_id: str | None
    client_request_id: str | None
    deleted: bool
    attachments: list[dict[str, Any]] = field(default_factory=list)


def principal_ref(message: StoredMessage) -> dict[str, str]:
    """The author as ``PrincipalRef``: id, kind, handle, display name; never an e-mail."""
    return {
        "id": message.author_id,
        "kind": message.author_kind,
        "handle": message.author_handle,
        "display_name": message.author_display_name,
    }


def message_view(message: StoredMessage) -> dict[str, Any]:
    """The ``Message`` schema of the messages API."""
    return {
        "id": message.id,
        "channel_id": message.channel_id,
        "thread_id": message.thread_id,
        "thread_seq": message.thread_seq,
        "author": principal_ref(message),
        "origin": message.origin,
        "kind": message.kind,
        "content_md": message.content_md,
        "created_at": message.created_at,
        "reply_to_message_id": message.reply_to_message_id,
        "parent_message_id": message.parent_message_id,
        "client_request_id": message.client_request_id,
        "deleted": message.deleted,
        "attachments": message.attachments,
    }
