from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.problem_code import ProblemCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="CallError")


@_attrs_define
class CallError:
    """A failed call: the Problem `code` (and `reason` on forbidden) a person gets for the same request, and a fixed one-
    line message without request values.

        Attributes:
            code (ProblemCode): Closed list of machine-readable error codes.
            message (str): Fixed text, one line, at most 200 characters.
            reason (str | Unset): Policy reason code, with `forbidden` only (for example no_grant, archived,
                acting_for_exceeded, run_required).
    """

    code: ProblemCode
    message: str
    reason: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message = self.message

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "code": code,
                "message": message,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = ProblemCode(d.pop("code"))

        message = d.pop("message")

        reason = d.pop("reason", UNSET)

        call_error = cls(
            code=code,
            message=message,
            reason=reason,
        )

        return call_error
