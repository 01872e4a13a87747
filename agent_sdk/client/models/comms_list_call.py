from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.comms_list_messages import CommsListMessages


T = TypeVar("T", bound="CommsListCall")


@_attrs_define
class CommsListCall:
    """
    Attributes:
        call_id (str): Id of the agent's tool call, echoed in the result (the SDK hashes a tool-call id that does not
            fit).
        list_messages (CommsListMessages): The parameters and bounds of listChannelMessages for the channel's main
            thread, checked per call (a violation answers in-band `validation_failed`): `limit` 1 to 100 (default 50);
            `before_message_id` is a message id. `channel_id` as for posting.
    """

    call_id: str
    list_messages: CommsListMessages

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        list_messages = self.list_messages.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "list_messages": list_messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comms_list_messages import CommsListMessages  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        list_messages = CommsListMessages.from_dict(d.pop("list_messages"))

        comms_list_call = cls(
            call_id=call_id,
            list_messages=list_messages,
        )

        return comms_list_call
