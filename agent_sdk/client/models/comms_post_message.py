from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CommsPostMessage")


@_attrs_define
class CommsPostMessage:
    """The fields and bounds of postChannelMessage, checked per call (a violation answers in-band `validation_failed`):
    `content_md` 1 to 65536 characters; `client_request_id` 1 to 128 of `A-Za-z0-9._:-` (the SDK sends `<broker
    nonce>:<tool call id>`); ids are UUIDs. `channel_id` absent means the agent's home channel; present, it must be a
    channel id: an empty or blank one is rejected.

        Attributes:
            content_md (str): Markdown content, 1 to 65536 characters.
            client_request_id (str): Idempotency key of the agent account; a repeat returns the first stored message with
                `replayed: true`.
            channel_id (str | Unset): Target channel; omit it for the home channel (an empty string is rejected).
            parent_message_id (str | Unset): Post into the thread under this main-thread message.
    """

    content_md: str
    client_request_id: str
    channel_id: str | Unset = UNSET
    parent_message_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        content_md = self.content_md

        client_request_id = self.client_request_id

        channel_id = self.channel_id

        parent_message_id = self.parent_message_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content_md": content_md,
                "client_request_id": client_request_id,
            }
        )
        if channel_id is not UNSET:
            field_dict["channel_id"] = channel_id
        if parent_message_id is not UNSET:
            field_dict["parent_message_id"] = parent_message_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content_md = d.pop("content_md")

        client_request_id = d.pop("client_request_id")

        channel_id = d.pop("channel_id", UNSET)

        parent_message_id = d.pop("parent_message_id", UNSET)

        comms_post_message = cls(
            content_md=content_md,
            client_request_id=client_request_id,
            channel_id=channel_id,
            parent_message_id=parent_message_id,
        )

        return comms_post_message
