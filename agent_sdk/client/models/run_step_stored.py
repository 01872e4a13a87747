from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.run_step_part import RunStepPart

if TYPE_CHECKING:
    from ..models.run_ceilings import RunCeilings


T = TypeVar("T", bound="RunStepStored")


@_attrs_define
class RunStepStored:
    """
    Attributes:
        seq (int): Position of the step in the run.
        kept (list[RunStepPart]): The parts of the submitted step that were stored.
        ceilings (RunCeilings): A run's monotone ceilings: they only tighten (resume, requeue and a looser fallback keep
            them).
    """

    seq: int
    kept: list[RunStepPart]
    ceilings: RunCeilings

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        kept = []
        for kept_item_data in self.kept:
            kept_item = kept_item_data.value
            kept.append(kept_item)

        ceilings = self.ceilings.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "seq": seq,
                "kept": kept,
                "ceilings": ceilings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_ceilings import RunCeilings  # noqa: PLC0415

        d = dict(src_dict)
        seq = d.pop("seq")

        kept = []
        _kept = d.pop("kept")
        for kept_item_data in _kept:
            kept_item = RunStepPart(kept_item_data)

            kept.append(kept_item)

        ceilings = RunCeilings.from_dict(d.pop("ceilings"))

        run_step_stored = cls(
            seq=seq,
            kept=kept,
            ceilings=ceilings,
        )

        return run_step_stored
