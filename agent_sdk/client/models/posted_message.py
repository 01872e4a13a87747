from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.message import Message


T = TypeVar("T", bound="PostedMessage")


@_attrs_define
class PostedMessage:
    """
    Attributes:
        message (Message): A stored message. A tombstone has `deleted: true` and empty `content_md`.
        replayed (bool): True when the agent account had already posted with this `client_request_id`: `message` is the
            first stored message, unchanged.
    """

    message: Message
    replayed: bool

    def to_dict(self) -> dict[str, Any]:
        message = self.message.to_dict()

        replayed = self.replayed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
                "replayed": replayed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message import Message  # noqa: PLC0415

        d = dict(src_dict)
        message = Message.from_dict(d.pop("message"))

        replayed = d.pop("replayed")

        posted_message = cls(
            message=message,
            replayed=replayed,
        )

        return posted_message
