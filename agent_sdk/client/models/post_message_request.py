from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostMessageRequest")


@_attrs_define
class PostMessageRequest:
    """
    Attributes:
        content_md (str): Markdown content.
        client_request_id (str | Unset): Idempotency key of the author: a repeat with the same key returns the first
            stored message.
        parent_message_id (UUID | Unset): Post into the thread under this main-thread message; the thread is created
            when absent.
        reply_to_message_id (UUID | Unset): The message this one replies to, in the same thread.
    """

    content_md: str
    client_request_id: str | Unset = UNSET
    parent_message_id: UUID | Unset = UNSET
    reply_to_message_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        content_md = self.content_md

        client_request_id = self.client_request_id

        parent_message_id: str | Unset = UNSET
        if not isinstance(self.parent_message_id, Unset):
            parent_message_id = str(self.parent_message_id)

        reply_to_message_id: str | Unset = UNSET
        if not isinstance(self.reply_to_message_id, Unset):
            reply_to_message_id = str(self.reply_to_message_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content_md": content_md,
            }
        )
        if client_request_id is not UNSET:
            field_dict["client_request_id"] = client_request_id
        if parent_message_id is not UNSET:
            field_dict["parent_message_id"] = parent_message_id
        if reply_to_message_id is not UNSET:
            field_dict["reply_to_message_id"] = reply_to_message_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content_md = d.pop("content_md")

        client_request_id = d.pop("client_request_id", UNSET)

        _parent_message_id = d.pop("parent_message_id", UNSET)
        parent_message_id: UUID | Unset
        if isinstance(_parent_message_id, Unset):
            parent_message_id = UNSET
        else:
            parent_message_id = UUID(_parent_message_id)

        _reply_to_message_id = d.pop("reply_to_message_id", UNSET)
        reply_to_message_id: UUID | Unset
        if isinstance(_reply_to_message_id, Unset):
            reply_to_message_id = UNSET
        else:
            reply_to_message_id = UUID(_reply_to_message_id)

        post_message_request = cls(
            content_md=content_md,
            client_request_id=client_request_id,
            parent_message_id=parent_message_id,
            reply_to_message_id=reply_to_message_id,
        )

        return post_message_request
