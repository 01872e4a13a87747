from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.run_step_metadata_status import RunStepMetadataStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="RunStepMetadata")


@_attrs_define
class RunStepMetadata:
    """Structured facts about the step, kept at the `metadata` level. Closed, and every string is an identifier, so no
    prose or prompt fits here.

        Attributes:
            provider_id (str | Unset): Id of an LLM provider: lower-case letters, digits, `.`, `_` and `-`; no `/`, `:` or
                whitespace (never an endpoint URL), at most 64 characters.
            attempt_id (str | Unset): Chosen by the adapter, unique per attempt of a run; a retry of the same attempt sends
                the same id.
            model (str | Unset): Model name as the provider spells it.
            tool_name (str | Unset): Tool of a tool call or result.
            status (RunStepMetadataStatus | Unset): Outcome of the call the step belongs to.
            input_tokens (int | Unset): Tokens sent.
            output_tokens (int | Unset): Tokens received.
            duration_ms (int | Unset): Duration of the call in milliseconds.
    """

    provider_id: str | Unset = UNSET
    attempt_id: str | Unset = UNSET
    model: str | Unset = UNSET
    tool_name: str | Unset = UNSET
    status: RunStepMetadataStatus | Unset = UNSET
    input_tokens: int | Unset = UNSET
    output_tokens: int | Unset = UNSET
    duration_ms: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        provider_id = self.provider_id

        attempt_id = self.attempt_id

        model = self.model

        tool_name = self.tool_name

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        duration_ms = self.duration_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if provider_id is not UNSET:
            field_dict["provider_id"] = provider_id
        if attempt_id is not UNSET:
            field_dict["attempt_id"] = attempt_id
        if model is not UNSET:
            field_dict["model"] = model
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if status is not UNSET:
            field_dict["status"] = status
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if duration_ms is not UNSET:
            field_dict["duration_ms"] = duration_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        provider_id = d.pop("provider_id", UNSET)

        attempt_id = d.pop("attempt_id", UNSET)

        model = d.pop("model", UNSET)

        tool_name = d.pop("tool_name", UNSET)

        _status = d.pop("status", UNSET)
        status: RunStepMetadataStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = RunStepMetadataStatus(_status)

        input_tokens = d.pop("input_tokens", UNSET)

        output_tokens = d.pop("output_tokens", UNSET)

        duration_ms = d.pop("duration_ms", UNSET)

        run_step_metadata = cls(
            provider_id=provider_id,
            attempt_id=attempt_id,
            model=model,
            tool_name=tool_name,
            status=status,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            duration_ms=duration_ms,
        )

        return run_step_metadata
