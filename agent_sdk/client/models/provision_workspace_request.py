from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="ProvisionWorkspaceRequest")


@_attrs_define
class ProvisionWorkspaceRequest:
    """
    Attributes:
        runner_id (UUID): The runner that hosts the workspace.
    """

    runner_id: UUID

    def to_dict(self) -> dict[str, Any]:
        runner_id = str(self.runner_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "runner_id": runner_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        runner_id = UUID(d.pop("runner_id"))

        provision_workspace_request = cls(
            runner_id=runner_id,
        )

        return provision_workspace_request
