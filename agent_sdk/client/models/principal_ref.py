from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.principal_kind import PrincipalKind

T = TypeVar("T", bound="PrincipalRef")


@_attrs_define
class PrincipalRef:
    """Reference to a principal as agents see it: id, kind, handle and display name. Never carries an e-mail address.

    Attributes:
        id (UUID): Id of the principal.
        kind (PrincipalKind): Kind of a principal.
        handle (str): Unique handle of the principal.
        display_name (str): Display name of the principal.
    """

    id: UUID
    kind: PrincipalKind
    handle: str
    display_name: str

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        kind = self.kind.value

        handle = self.handle

        display_name = self.display_name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "handle": handle,
                "display_name": display_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = PrincipalKind(d.pop("kind"))

        handle = d.pop("handle")

        display_name = d.pop("display_name")

        principal_ref = cls(
            id=id,
            kind=kind,
            handle=handle,
            display_name=display_name,
        )

        return principal_ref
