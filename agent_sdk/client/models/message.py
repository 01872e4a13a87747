from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.message_kind import MessageKind
from ..models.message_origin import MessageOrigin
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.principal_ref import PrincipalRef
    from ..models.run_context_attachment import RunContextAttachment


T = TypeVar("T", bound="Message")


@_attrs_define
class Message:
    """A stored message. A tombstone has `deleted: true` and empty `content_md`.

    Attributes:
        id (UUID): Id of the message.
        channel_id (UUID): Current channel of the message's thread.
        thread_id (UUID): Thread of the message (the main thread or a thread).
        thread_seq (int): Position of the message in its thread, unique per thread.
        author (PrincipalRef): Reference to a principal as agents see it: id, kind, handle and display name. Never
            carries an e-mail address.
        origin (MessageOrigin): Origin of a message, set only by the server: human (posted by a person), agent, app,
            import (imported from another system, whatever author it is mapped to) or system (a system line such as
            thread.reopened).
        kind (MessageKind): Kind of a message.
        content_md (str): Markdown content; empty for a tombstone.
        created_at (datetime.datetime): When the message was stored.
        deleted (bool): True for a tombstone.
        attachments (list[RunContextAttachment]): Attachments of the message; always present, possibly empty.
        reply_to_message_id (UUID | Unset): The message this one replies to; present only when set.
        parent_message_id (UUID | Unset): The thread's parent message, present only when the message is in a thread that
            has one.
        client_request_id (str | Unset): The author's idempotency key, present only when one was given.
    """

    id: UUID
    channel_id: UUID
    thread_id: UUID
    thread_seq: int
    author: PrincipalRef
    origin: MessageOrigin
    kind: MessageKind
    content_md: str
    created_at: datetime.datetime
    deleted: bool
    attachments: list[RunContextAttachment]
    reply_to_message_id: UUID | Unset = UNSET
    parent_message_id: UUID | Unset = UNSET
    client_request_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        channel_id = str(self.channel_id)

        thread_id = str(self.thread_id)

        thread_seq = self.thread_seq

        author = self.author.to_dict()

        origin = self.origin.value

        kind = self.kind.value

        content_md = self.content_md

        created_at = self.created_at.isoformat()

        deleted = self.deleted

        attachments = []
        for attachments_item_data in self.attachments:
            attachments_item = attachments_item_data.to_dict()
            attachments.append(attachments_item)

        reply_to_message_id: str | Unset = UNSET
        if not isinstance(self.reply_to_message_id, Unset):
            reply_to_message_id = str(self.reply_to_message_id)

        parent_message_id: str | Unset = UNSET
        if not isinstance(self.parent_message_id, Unset):
            parent_message_id = str(self.parent_message_id)

        client_request_id = self.client_request_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "channel_id": channel_id,
                "thread_id": thread_id,
                "thread_seq": thread_seq,
                "author": author,
                "origin": origin,
                "kind": kind,
                "content_md": content_md,
                "created_at": created_at,
                "deleted": deleted,
                "attachments": attachments,
            }
        )
        if reply_to_message_id is not UNSET:
            field_dict["reply_to_message_id"] = reply_to_message_id
        if parent_message_id is not UNSET:
            field_dict["parent_message_id"] = parent_message_id
        if client_request_id is not UNSET:
            field_dict["client_request_id"] = client_request_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.principal_ref import PrincipalRef  # noqa: PLC0415
        from ..models.run_context_attachment import RunContextAttachment  # noqa: PLC0415

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        channel_id = UUID(d.pop("channel_id"))

        thread_id = UUID(d.pop("thread_id"))

        thread_seq = d.pop("thread_seq")

        author = PrincipalRef.from_dict(d.pop("author"))

        origin = MessageOrigin(d.pop("origin"))

        kind = MessageKind(d.pop("kind"))

        content_md = d.pop("content_md")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        deleted = d.pop("deleted")

        attachments = []
        _attachments = d.pop("attachments")
        for attachments_item_data in _attachments:
            attachments_item = RunContextAttachment.from_dict(attachments_item_data)

            attachments.append(attachments_item)

        _reply_to_message_id = d.pop("reply_to_message_id", UNSET)
        reply_to_message_id: UUID | Unset
        if isinstance(_reply_to_message_id, Unset):
            reply_to_message_id = UNSET
        else:
            reply_to_message_id = UUID(_reply_to_message_id)

        _parent_message_id = d.pop("parent_message_id", UNSET)
        parent_message_id: UUID | Unset
        if isinstance(_parent_message_id, Unset):
            parent_message_id = UNSET
        else:
            parent_message_id = UUID(_parent_message_id)

        client_request_id = d.pop("client_request_id", UNSET)

        message = cls(
            id=id,
            channel_id=channel_id,
            thread_id=thread_id,
            thread_seq=thread_seq,
            author=author,
            origin=origin,
            kind=kind,
            content_md=content_md,
            created_at=created_at,
            deleted=deleted,
            attachments=attachments,
            reply_to_message_id=reply_to_message_id,
            parent_message_id=parent_message_id,
            client_request_id=client_request_id,
        )

        return message
