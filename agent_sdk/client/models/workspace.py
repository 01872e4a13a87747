from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.binding_state import BindingState

T = TypeVar("T", bound="Workspace")


@_attrs_define
class Workspace:
    """
    Attributes:
        agent_id (UUID): The agent account the container acts as.
        runner_id (UUID): The runner that hosts the container.
        container_name (str): Name of a workspace container, minted by the server at provisioning.
        state (BindingState): provisioned (a container awaits its session) or bound (the container's session id resolves
            to the agent account).
    """

    agent_id: UUID
    runner_id: UUID
    container_name: str
    state: BindingState

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        runner_id = str(self.runner_id)

        container_name = self.container_name

        state = self.state.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "runner_id": runner_id,
                "container_name": container_name,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        runner_id = UUID(d.pop("runner_id"))

        container_name = d.pop("container_name")

        state = BindingState(d.pop("state"))

        workspace = cls(
            agent_id=agent_id,
            runner_id=runner_id,
            container_name=container_name,
            state=state,
        )

        return workspace
