from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.provider_attempt_go_outcome import ProviderAttemptGoOutcome

if TYPE_CHECKING:
    from ..models.run_ceilings import RunCeilings


T = TypeVar("T", bound="ProviderAttemptGo")


@_attrs_define
class ProviderAttemptGo:
    """
    Attributes:
        outcome (ProviderAttemptGoOutcome): The attempt may be made; its ceilings are committed.
        ceilings (RunCeilings): A run's monotone ceilings: they only tighten (resume, requeue and a looser fallback keep
            them).
    """

    outcome: ProviderAttemptGoOutcome
    ceilings: RunCeilings

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome.value

        ceilings = self.ceilings.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "outcome": outcome,
                "ceilings": ceilings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_ceilings import RunCeilings  # noqa: PLC0415

        d = dict(src_dict)
        outcome = ProviderAttemptGoOutcome(d.pop("outcome"))

        ceilings = RunCeilings.from_dict(d.pop("ceilings"))

        provider_attempt_go = cls(
            outcome=outcome,
            ceilings=ceilings,
        )

        return provider_attempt_go
