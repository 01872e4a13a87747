from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="FieldError")


@_attrs_define
class FieldError:
    """One schema or semantic violation of a request.

    Attributes:
        path (str): Location of the offending value (for example body/content_md). Object keys are JSON Pointer segments
            (`~0` for `~`, `~1` for `/`); a key the client chose appears as an escaped prefix of at most 64 characters
            (control characters, unpaired surrogates and the backslash as `\\uXXXX` and `\\\\`).
        message (str): Fixed text describing the rule; never echoes a submitted value (it may name up to five unknown
            field names of a body, escaped and cut like the keys of `path`, and how many more there were).
    """

    path: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "path": path,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        message = d.pop("message")

        field_error = cls(
            path=path,
            message=message,
        )

        return field_error
