from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RunnerSessionReport")


@_attrs_define
class RunnerSessionReport:
    """
    Attributes:
        container_name (str): Name of a workspace container, minted by the server at provisioning.
        session_id (str): A session id minted by the runner; unique per runner. Only letters, digits and `._:-`, so it
            can be logged.
    """

    container_name: str
    session_id: str

    def to_dict(self) -> dict[str, Any]:
        container_name = self.container_name

        session_id = self.session_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "container_name": container_name,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        container_name = d.pop("container_name")

        session_id = d.pop("session_id")

        runner_session_report = cls(
            container_name=container_name,
            session_id=session_id,
        )

        return runner_session_report
