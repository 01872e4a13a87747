from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.run_step_kind import RunStepKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_step_metadata import RunStepMetadata


T = TypeVar("T", bound="AppendRunStepRequest")


@_attrs_define
class AppendRunStepRequest:
    """
    Attributes:
        kind (RunStepKind): What the step is an audit copy of.
        metadata (RunStepMetadata | Unset): Structured facts about the step, kept at the `metadata` level. Closed, and
            every string is an identifier, so no prose or prompt fits here.
        content (str | Unset): The audit copy itself (text, or JSON serialised as text); kept only at the `full` level.
    """

    kind: RunStepKind
    metadata: RunStepMetadata | Unset = UNSET
    content: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        content = self.content

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if content is not UNSET:
            field_dict["content"] = content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_step_metadata import RunStepMetadata  # noqa: PLC0415

        d = dict(src_dict)
        kind = RunStepKind(d.pop("kind"))

        _metadata = d.pop("metadata", UNSET)
        metadata: RunStepMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = RunStepMetadata.from_dict(_metadata)

        content = d.pop("content", UNSET)

        append_run_step_request = cls(
            kind=kind,
            metadata=metadata,
            content=content,
        )

        return append_run_step_request
