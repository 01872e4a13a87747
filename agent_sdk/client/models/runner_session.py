from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.binding_state import BindingState
from ..types import UNSET, Unset

T = TypeVar("T", bound="RunnerSession")


@_attrs_define
class RunnerSession:
    """A binding as its runner sees it: no account identity (the runner resolves no account and asserts none).

    Attributes:
        container_name (str): Name of a workspace container, minted by the server at provisioning.
        state (BindingState): provisioned (a container awaits its session) or bound (the container's session id resolves
            to the agent account).
        session_id (str | Unset): A session id minted by the runner; unique per runner. Only letters, digits and `._:-`,
            so it can be logged.
        run_id (UUID | Unset): The run the runner bound to the session, when one is bound. A run that has ended stays
            named here until it is unbound or replaced, but no longer binds the relayed calls.
    """

    container_name: str
    state: BindingState
    session_id: str | Unset = UNSET
    run_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        container_name = self.container_name

        state = self.state.value

        session_id = self.session_id

        run_id: str | Unset = UNSET
        if not isinstance(self.run_id, Unset):
            run_id = str(self.run_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "container_name": container_name,
                "state": state,
            }
        )
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        container_name = d.pop("container_name")

        state = BindingState(d.pop("state"))

        session_id = d.pop("session_id", UNSET)

        _run_id = d.pop("run_id", UNSET)
        run_id: UUID | Unset
        if isinstance(_run_id, Unset):
            run_id = UNSET
        else:
            run_id = UUID(_run_id)

        runner_session = cls(
            container_name=container_name,
            state=state,
            session_id=session_id,
            run_id=run_id,
        )

        return runner_session
