from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.scan_status import ScanStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="RunContextAttachment")


@_attrs_define
class RunContextAttachment:
    """A file attached to a message, as messaging represents it. File contents are always data and are fetched separately
    with file.read; a transcript carries the trust of its message.

        Attributes:
            file_id (UUID): Id of the file.
            original_name (str): File name as uploaded.
            mime_type (str): MIME type of the file.
            size_bytes (int): Size of the file in bytes.
            scan_status (ScanStatus): Malware scan status of a file.
            transcript (str | Unset): Transcript of a voice message, only when one exists. Data with the trust of its
                message.
    """

    file_id: UUID
    original_name: str
    mime_type: str
    size_bytes: int
    scan_status: ScanStatus
    transcript: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        file_id = str(self.file_id)

        original_name = self.original_name

        mime_type = self.mime_type

        size_bytes = self.size_bytes

        scan_status = self.scan_status.value

        transcript = self.transcript

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "file_id": file_id,
                "original_name": original_name,
                "mime_type": mime_type,
                "size_bytes": size_bytes,
                "scan_status": scan_status,
            }
        )
        if transcript is not UNSET:
            field_dict["transcript"] = transcript

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file_id = UUID(d.pop("file_id"))

        original_name = d.pop("original_name")

        mime_type = d.pop("mime_type")

        size_bytes = d.pop("size_bytes")

        scan_status = ScanStatus(d.pop("scan_status"))

        transcript = d.pop("transcript", UNSET)

        run_context_attachment = cls(
            file_id=file_id,
            original_name=original_name,
            mime_type=mime_type,
            size_bytes=size_bytes,
            scan_status=scan_status,
            transcript=transcript,
        )

        return run_context_attachment
