from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.acting_for import ActingFor
    from ..models.message_page import MessagePage


T = TypeVar("T", bound="RelayListResult")


@_attrs_define
class RelayListResult:
    """
    Attributes:
        call_id (str): Id of the agent's tool call, echoed in the result (the SDK hashes a tool-call id that does not
            fit).
        list_messages (MessagePage):
        acting_for (ActingFor): Which mode decided a relayed call: `{"mode": "own"}` or `{"mode": "run", "run_id"}`.
    """

    call_id: str
    list_messages: MessagePage
    acting_for: ActingFor

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        list_messages = self.list_messages.to_dict()

        acting_for = self.acting_for.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "list_messages": list_messages,
                "acting_for": acting_for,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.acting_for import ActingFor  # noqa: PLC0415
        from ..models.message_page import MessagePage  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        list_messages = MessagePage.from_dict(d.pop("list_messages"))

        acting_for = ActingFor.from_dict(d.pop("acting_for"))

        relay_list_result = cls(
            call_id=call_id,
            list_messages=list_messages,
            acting_for=acting_for,
        )

        return relay_list_result
