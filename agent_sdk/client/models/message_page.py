from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.message import Message


T = TypeVar("T", bound="MessagePage")


@_attrs_define
class MessagePage:
    """
    Attributes:
        items (list[Message]): Messages of the page, oldest first (at most `limit`).
        has_more (bool): True when older messages exist before the first item.
    """

    items: list[Message]
    has_more: bool

    def to_dict(self) -> dict[str, Any]:
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        has_more = self.has_more

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "items": items,
                "has_more": has_more,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message import Message  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = Message.from_dict(items_item_data)

            items.append(items_item)

        has_more = d.pop("has_more")

        message_page = cls(
            items=items,
            has_more=has_more,
        )

        return message_page
