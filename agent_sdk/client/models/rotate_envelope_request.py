from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RotateEnvelopeRequest")


@_attrs_define
class RotateEnvelopeRequest:
    """
    Attributes:
        sealed_envelope (str): The new sealed envelope (opaque ciphertext, base64 or base64url).
    """

    sealed_envelope: str

    def to_dict(self) -> dict[str, Any]:
        sealed_envelope = self.sealed_envelope

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sealed_envelope": sealed_envelope,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        sealed_envelope = d.pop("sealed_envelope")

        rotate_envelope_request = cls(
            sealed_envelope=sealed_envelope,
        )

        return rotate_envelope_request
