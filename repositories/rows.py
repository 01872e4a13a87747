"""Build a result dataclass from a result row whose column labels are its field names.

The repositories label their SELECT columns after the fields of the dataclass they
answer with (``r.id::text AS run_id``), so the plain fields are read by name here and
only the fields that need work (a cast, a nested value) are spelled out at the caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = ["from_row"]

T = TypeVar("T")


# Field names by dataclass: read once per class, since the callers are on hot paths.
_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _field_names(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(field.name for field in dataclasses.fields(cls))
    return names


def from_row(cls: type[T], row: Mapping[Any, Any], **computed: Any) -> T:
    """``cls(...)`` with ``computed`` as given and every other field from ``row[field]``.

    Raises:
        KeyError: the row has no column labelled like a field not in ``computed`` (a
            query and its dataclass out of step).
        TypeError: ``cls`` is not a dataclass, or ``computed`` names no field of it.
    """
    plain = {name: row[name] for name in _field_names(cls) if name not in computed}
    return cls(**plain, **computed)
