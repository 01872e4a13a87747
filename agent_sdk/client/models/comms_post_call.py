from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.comms_post_message import CommsPostMessage


T = TypeVar("T", bound="CommsPostCall")


@_attrs_define
class CommsPostCall:
    """
    Attributes:
        call_id (str): Id of the agent's tool call, echoed in the result (the SDK hashes a tool-call id that does not
            fit).
        post_message (CommsPostMessage): The fields and bounds of postChannelMessage, checked per call (a violation
            answers in-band `validation_failed`): `content_md` 1 to 65536 characters; `client_request_id` 1 to 128 of
            `A-Za-z0-9._:-` (the SDK sends `<broker nonce>:<tool call id>`); ids are UUIDs. `channel_id` absent means the
            agent's home channel; present, it must be a channel id: an empty or blank one is rejected.
    """

    call_id: str
    post_message: CommsPostMessage

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        post_message = self.post_message.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "post_message": post_message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comms_post_message import CommsPostMessage  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        post_message = CommsPostMessage.from_dict(d.pop("post_message"))

        comms_post_call = cls(
            call_id=call_id,
            post_message=post_message,
        )

        return comms_post_call
