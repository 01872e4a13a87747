"""JSON encoding that never emits JSON null, with orjson (ADR 0009).

Absent optional fields are omitted instead of being sent as ``null`` (the contract
has no nullable field). ``None`` inside a list is a programming error, because the
contract has no such list: it raises instead of being silently dropped.

The hot paths build their bodies without ``None`` in the first place, so
:func:`dumps` encodes once and only looks for a null token in the output; only when
it finds one (or a string that merely looks like one) does it drop the nulls and
encode again. Times are RFC 3339; UTC is written with ``Z`` and a naive time is UTC.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["drop_nulls", "dumps"]

_CONTAINERS = (dict, list, tuple)
_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NAIVE_UTC
# A null value in orjson's compact output follows one of these bytes; inside a string
# the same bytes can occur too (``"a:null"``), which only costs the slow path.
_NULL_TOKENS = (b":null", b"[null", b",null")


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
    raise TypeError(f"cannot encode {type(value).__name__}")


def _encode(value: Any) -> bytes:
    try:
        return orjson.dumps(value, default=_default, option=_OPTIONS)
    except orjson.JSONEncodeError as exc:
        raise TypeError(f"cannot encode: {exc}") from exc


def dumps(value: Any) -> bytes:
    """Encode ``value`` as compact UTF-8 JSON without nulls.

    Raises:
        ValueError: ``value`` is ``None`` or holds ``None`` inside a list.
        TypeError: ``value`` holds something JSON cannot represent.
    """
    if value is None:
        raise ValueError("a body cannot be null")
    encoded = _encode(value)
    # One fast scan for the common case; the tokens only when "null" occurs at all.
    if b"null" in encoded and any(token in encoded for token in _NULL_TOKENS):
        encoded = _encode(drop_nulls(value))
    return encoded
