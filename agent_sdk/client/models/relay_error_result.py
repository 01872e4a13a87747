from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.acting_for import ActingFor
    from ..models.call_error import CallError


T = TypeVar("T", bound="RelayErrorResult")


@_attrs_define
class RelayErrorResult:
    """
    Attributes:
        call_id (str): Id of the agent's tool call, echoed in the result (the SDK hashes a tool-call id that does not
            fit).
        error (CallError): A failed call: the Problem `code` (and `reason` on forbidden) a person gets for the same
            request, and a fixed one-line message without request values.
        acting_for (ActingFor): Which mode decided a relayed call: `{"mode": "own"}` or `{"mode": "run", "run_id"}`.
    """

    call_id: str
    error: CallError
    acting_for: ActingFor

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        error = self.error.to_dict()

        acting_for = self.acting_for.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "error": error,
                "acting_for": acting_for,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.acting_for import ActingFor  # noqa: PLC0415
        from ..models.call_error import CallError  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        error = CallError.from_dict(d.pop("error"))

        acting_for = ActingFor.from_dict(d.pop("acting_for"))

        relay_error_result = cls(
            call_id=call_id,
            error=error,
            acting_for=acting_for,
        )

        return relay_error_result
