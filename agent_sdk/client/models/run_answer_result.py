from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.run_ceilings import RunCeilings


T = TypeVar("T", bound="RunAnswerResult")


@_attrs_define
class RunAnswerResult:
    """
    Attributes:
        stored (bool): False when the background-answer ceiling prohibits the answer; nothing was stored.
        ceilings (RunCeilings): A run's monotone ceilings: they only tighten (resume, requeue and a looser fallback keep
            them).
    """

    stored: bool
    ceilings: RunCeilings

    def to_dict(self) -> dict[str, Any]:
        stored = self.stored

        ceilings = self.ceilings.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "stored": stored,
                "ceilings": ceilings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_ceilings import RunCeilings  # noqa: PLC0415

        d = dict(src_dict)
        stored = d.pop("stored")

        ceilings = RunCeilings.from_dict(d.pop("ceilings"))

        run_answer_result = cls(
            stored=stored,
            ceilings=ceilings,
        )

        return run_answer_result
