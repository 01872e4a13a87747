from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PutRunAnswerRequest")


@_attrs_define
class PutRunAnswerRequest:
    """
    Attributes:
        answer_md (str): The background answer (Markdown).
    """

    answer_md: str

    def to_dict(self) -> dict[str, Any]:
        answer_md = self.answer_md

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "answer_md": answer_md,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        answer_md = d.pop("answer_md")

        put_run_answer_request = cls(
            answer_md=answer_md,
        )

        return put_run_answer_request
