from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.acting_for_mode import ActingForMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="ActingFor")


@_attrs_define
class ActingFor:
    """Which mode decided a relayed call: `{"mode": "own"}` or `{"mode": "run", "run_id"}`.

    Attributes:
        mode (ActingForMode): own: decided on the agent's own rights (no live run bound to the session); run: decided
            for the agent and for the requester of the bound run.
        run_id (UUID | Unset): The bound run the call was decided for; present in mode run only.
    """

    mode: ActingForMode
    run_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        mode = self.mode.value

        run_id: str | Unset = UNSET
        if not isinstance(self.run_id, Unset):
            run_id = str(self.run_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "mode": mode,
            }
        )
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mode = ActingForMode(d.pop("mode"))

        _run_id = d.pop("run_id", UNSET)
        run_id: UUID | Unset
        if isinstance(_run_id, Unset):
            run_id = UNSET
        else:
            run_id = UUID(_run_id)

        acting_for = cls(
            mode=mode,
            run_id=run_id,
        )

        return acting_for
