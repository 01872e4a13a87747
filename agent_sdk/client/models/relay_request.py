from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.comms_list_call import CommsListCall
    from ..models.comms_post_call import CommsPostCall


T = TypeVar("T", bound="RelayRequest")


@_attrs_define
class RelayRequest:
    """The relay envelope. The call's values are checked per call, text PostgreSQL cannot store included: a violation
    answers 200 in band (`validation_failed`), never 422.

        Attributes:
            session_id (str): A session id minted by the runner; unique per runner. Only letters, digits and `._:-`, so it
                can be logged.
            call (CommsListCall | CommsPostCall): One comms call: exactly one of `post_message` and `list_messages`. The
                union has no member that could answer an ask, and unknown members are rejected (422), so answering an ask cannot
                be expressed.
    """

    session_id: str
    call: CommsListCall | CommsPostCall

    def to_dict(self) -> dict[str, Any]:
        from ..models.comms_post_call import CommsPostCall  # noqa: PLC0415

        session_id = self.session_id

        call: dict[str, Any]
        if isinstance(self.call, CommsPostCall):
            call = self.call.to_dict()
        else:
            call = self.call.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "session_id": session_id,
                "call": call,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comms_list_call import CommsListCall  # noqa: PLC0415
        from ..models.comms_post_call import CommsPostCall  # noqa: PLC0415

        d = dict(src_dict)
        session_id = d.pop("session_id")

        def _parse_call(data: object) -> CommsListCall | CommsPostCall:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_comms_call_type_0 = CommsPostCall.from_dict(data)

                return componentsschemas_comms_call_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_comms_call_type_1 = CommsListCall.from_dict(data)

            return componentsschemas_comms_call_type_1

        call = _parse_call(d.pop("call"))

        relay_request = cls(
            session_id=session_id,
            call=call,
        )

        return relay_request
