from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CommsListMessages")


@_attrs_define
class CommsListMessages:
    """The parameters and bounds of listChannelMessages for the channel's main thread, checked per call (a violation
    answers in-band `validation_failed`): `limit` 1 to 100 (default 50); `before_message_id` is a message id.
    `channel_id` as for posting.

        Attributes:
            channel_id (str | Unset): Target channel; omit it for the home channel (an empty string is rejected).
            limit (int | Unset): Maximum number of messages, 1 to 100 (default 50).
            before_message_id (str | Unset): Page before this message (the first item of the previous page).
    """

    channel_id: str | Unset = UNSET
    limit: int | Unset = UNSET
    before_message_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        channel_id = self.channel_id

        limit = self.limit

        before_message_id = self.before_message_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if channel_id is not UNSET:
            field_dict["channel_id"] = channel_id
        if limit is not UNSET:
            field_dict["limit"] = limit
        if before_message_id is not UNSET:
            field_dict["before_message_id"] = before_message_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        channel_id = d.pop("channel_id", UNSET)

        limit = d.pop("limit", UNSET)

        before_message_id = d.pop("before_message_id", UNSET)

        comms_list_messages = cls(
            channel_id=channel_id,
            limit=limit,
            before_message_id=before_message_id,
        )

        return comms_list_messages
