from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.attempt_kind import AttemptKind

T = TypeVar("T", bound="ProviderAttemptRequest")


@_attrs_define
class ProviderAttemptRequest:
    """
    Attributes:
        attempt_id (str): Chosen by the adapter, unique per attempt of a run; a retry of the same attempt sends the same
            id.
        provider_id (str): Id of an LLM provider: lower-case letters, digits, `.`, `_` and `-`; no `/`, `:` or
            whitespace (never an endpoint URL), at most 64 characters.
        kind (AttemptKind): Whether the attempt is a chat (model) call or a tool call.
    """

    attempt_id: str
    provider_id: str
    kind: AttemptKind

    def to_dict(self) -> dict[str, Any]:
        attempt_id = self.attempt_id

        provider_id = self.provider_id

        kind = self.kind.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attempt_id": attempt_id,
                "provider_id": provider_id,
                "kind": kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt_id = d.pop("attempt_id")

        provider_id = d.pop("provider_id")

        kind = AttemptKind(d.pop("kind"))

        provider_attempt_request = cls(
            attempt_id=attempt_id,
            provider_id=provider_id,
            kind=kind,
        )

        return provider_attempt_request
