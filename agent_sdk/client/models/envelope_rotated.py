from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="EnvelopeRotated")


@_attrs_define
class EnvelopeRotated:
    """
    Attributes:
        envelope_version (int): The envelope version after the rotation (also the `ETag`).
    """

    envelope_version: int

    def to_dict(self) -> dict[str, Any]:
        envelope_version = self.envelope_version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "envelope_version": envelope_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        envelope_version = d.pop("envelope_version")

        envelope_rotated = cls(
            envelope_version=envelope_version,
        )

        return envelope_rotated
