from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_ceilings import RunCeilings


T = TypeVar("T", bound="RunPrivacy")


@_attrs_define
class RunPrivacy:
    """
    Attributes:
        attempted_provider_ids (list[str]): Every recorded attempt's provider, in attempt order (a provider tried twice
            appears twice). Empty for a run without attempts: no historical provider is ever invented. A run records at most
            1000 attempts.
        ceilings (RunCeilings | Unset): A run's monotone ceilings: they only tighten (resume, requeue and a looser
            fallback keep them).
    """

    attempted_provider_ids: list[str]
    ceilings: RunCeilings | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        attempted_provider_ids = self.attempted_provider_ids

        ceilings: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ceilings, Unset):
            ceilings = self.ceilings.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attempted_provider_ids": attempted_provider_ids,
            }
        )
        if ceilings is not UNSET:
            field_dict["ceilings"] = ceilings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_ceilings import RunCeilings  # noqa: PLC0415

        d = dict(src_dict)
        attempted_provider_ids = cast(list[str], d.pop("attempted_provider_ids"))

        _ceilings = d.pop("ceilings", UNSET)
        ceilings: RunCeilings | Unset
        if isinstance(_ceilings, Unset):
            ceilings = UNSET
        else:
            ceilings = RunCeilings.from_dict(_ceilings)

        run_privacy = cls(
            attempted_provider_ids=attempted_provider_ids,
            ceilings=ceilings,
        )

        return run_privacy
