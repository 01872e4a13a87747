from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.acting_for import ActingFor
    from ..models.posted_message import PostedMessage


T = TypeVar("T", bound="RelayPostResult")


@_attrs_define
class RelayPostResult:
    """
    Attributes:
        call_id (str): Id of the agent's tool call, echoed in the result (the SDK hashes a tool-call id that does not
            fit).
        post_message (PostedMessage):
        acting_for (ActingFor): Which mode decided a relayed call: `{"mode": "own"}` or `{"mode": "run", "run_id"}`.
    """

    call_id: str
    post_message: PostedMessage
    acting_for: ActingFor

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        post_message = self.post_message.to_dict()

        acting_for = self.acting_for.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "post_message": post_message,
                "acting_for": acting_for,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.acting_for import ActingFor  # noqa: PLC0415
        from ..models.posted_message import PostedMessage  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        post_message = PostedMessage.from_dict(d.pop("post_message"))

        acting_for = ActingFor.from_dict(d.pop("acting_for"))

        relay_post_result = cls(
            call_id=call_id,
            post_message=post_message,
            acting_for=acting_for,
        )

        return relay_post_result
