"""JSON encoding that never emits JSON null.

Absent optional fields are omitted instead of being sent as ``null`` (the contract
has no nullable field). ``None`` inside a list is a programming error, because the
contract has no such list: it raises instead of being silently dropped.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

__all__ = ["drop_nulls", "dumps"]


_CONTAINERS = (dict, list, tuple)


def drop_nulls(value: Any) -> Any:
    """A copy of ``value`` with every ``None``-valued object member removed.

    Raises:
        ValueError: a list contains ``None``.
    """
    if isinstance(value, dict):
        # Recurse only into containers: a call per scalar would dominate large bodies.
        return {
            key: drop_nulls(item) if isinstance(item, _CONTAINERS) else item
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, _CONTAINERS):
        if any(item is None for item in value):
            raise ValueError("null inside a list cannot be encoded")
        return [drop_nulls(item) if isinstance(item, _CONTAINERS) else item for item in value]
    return value


def _default(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def dumps(value: Any) -> bytes:
    """Encode ``value`` as compact UTF-8 JSON without nulls.

    Raises:
        ValueError: ``value`` is ``None`` or holds ``None`` inside a list.
    """
    if value is None:
        raise ValueError("a body cannot be null")
    return json.dumps(
        drop_nulls(value), default=_default, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")
