"""The single JSON representation of a message and of a principal reference.

Pure shaping (no I/O): the messages API and the run context both build their
elements from these functions, so an author never carries an e-mail address and an
absent optional field is omitted rather than null.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["StoredMessage", "context_element", "message_view", "principal_ref"]


class StoredMessage(NamedTuple):
    """One message as stored, with its author reference and attachments.

    Immutable, and a named tuple rather than a frozen dataclass: a context read builds
    a hundred of them per request, and a frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field) cost eight times as much.
    """

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
    attachments: Sequence[dict[str, Any]] = ()


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


def context_element(
    message: StoredMessage,
    *,
    author: dict[str, str],
    content_md: str,
    truncated: bool,
    role: str,
    trust: str,
    already_delivered: bool,
) -> dict[str, Any]:
    """The ``RunContextMessage`` schema of ``run_context.v1``.

    Built without absent keys: ``reply_to_message_id`` only when set, ``truncated`` and
    ``already_delivered`` only when true (the contract has no null).

    Args:
        message: The message as stored.
        author: Its author as :func:`principal_ref` builds it (shared by the elements
            of one author: a context has a handful of authors and a hundred elements).
        content_md: Its content after the per-element cut.
        truncated: Whether ``content_md`` was cut.
        role: The role the policy gave the message's (author, origin).
        trust: The trust the policy gave the message's (author, origin).
        already_delivered: Whether the resumed session already received it.
    """
    element: dict[str, Any] = {
        "message_id": message.id,
        "thread_seq": message.thread_seq,
        "created_at": message.created_at,
        "channel_id": message.channel_id,
        "author": author,
        "role": role,
        "origin": message.origin,
        "kind": message.kind,
        "content_md": content_md,
        "attachments": message.attachments,
        "trust": trust,
    }
    if message.reply_to_message_id is not None:
        element["reply_to_message_id"] = message.reply_to_message_id
    if truncated:
        element["truncated"] = True
    if already_delivered:
        element["already_delivered"] = True
    return element
