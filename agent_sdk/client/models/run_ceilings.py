from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.ceiling import Ceiling


T = TypeVar("T", bound="RunCeilings")


@_attrs_define
class RunCeilings:
    """A run's monotone ceilings: they only tighten (resume, requeue and a looser fallback keep them).

    Attributes:
        audit_content (Ceiling):
        background_answer (Ceiling):
    """

    audit_content: Ceiling
    background_answer: Ceiling

    def to_dict(self) -> dict[str, Any]:
        audit_content = self.audit_content.to_dict()

        background_answer = self.background_answer.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "audit_content": audit_content,
                "background_answer": background_answer,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ceiling import Ceiling  # noqa: PLC0415

        d = dict(src_dict)
        audit_content = Ceiling.from_dict(d.pop("audit_content"))

        background_answer = Ceiling.from_dict(d.pop("background_answer"))

        run_ceilings = cls(
            audit_content=audit_content,
            background_answer=background_answer,
        )

        return run_ceilings
