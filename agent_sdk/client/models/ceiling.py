from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.ceiling_level import CeilingLevel

T = TypeVar("T", bound="Ceiling")


@_attrs_define
class Ceiling:
    """
    Attributes:
        level (CeilingLevel): A level of the retention scale, strictest first (the order and the global default are
            policy data in `policies/privacy/scale`): `none` keeps only a step's kind and never the background answer;
            `metadata` keeps a step's kind and metadata, and the answer only under the global default; `full` keeps
            everything.
        explicit (bool): True when an explicit provider or task policy set this ceiling; false for the global default.
            An explicit `metadata` background-answer ceiling prohibits the answer, the default one keeps it.
    """

    level: CeilingLevel
    explicit: bool

    def to_dict(self) -> dict[str, Any]:
        level = self.level.value

        explicit = self.explicit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "level": level,
                "explicit": explicit,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        level = CeilingLevel(d.pop("level"))

        explicit = d.pop("explicit")

        ceiling = cls(
            level=level,
            explicit=explicit,
        )

        return ceiling
