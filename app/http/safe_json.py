"""Parse an untrusted JSON body without letting the parser fail with a 500.

Python's ``json`` has three traps for hostile input: deep nesting raises
``RecursionError``, an integer literal longer than 4,300 digits raises ``ValueError``
(``sys.get_int_max_str_digits``), and the non-JSON literals ``NaN`` and ``Infinity``
are accepted. :func:`parse_json_body` turns each of them into 400
``invalid_request``, bounds integer literals to ``http.max_json_integer_digits``
digits before they are converted, rejects non-finite numbers, and bounds nesting to
``http.max_json_depth`` before any schema validator walks the document (jsonschema
validation recurses too). A fourth is cost: the number of arrays and objects, which
the parser, the depth check and the garbage collector all pay for, is bounded by
``http.max_json_containers`` on the bytes, before parsing.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from app.errors import InvalidRequest

__all__ = ["containers_exceed", "nesting_exceeds", "parse_json_body"]

_NOT_JSON = "The request body is not valid JSON."


class _Rejected(ValueError):
    """A literal the body limits refuse (raised inside the decoder's hooks)."""


def _reject_constant(_name: str) -> Any:
    raise _Rejected("NaN and Infinity are not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected("number out of range")
    return value


_CONTAINERS = (dict, list)


def nesting_exceeds(value: Any, max_depth: int) -> bool:
    """True when ``value`` nests arrays and objects deeper than ``max_depth`` levels.

    Iterative, level by level, so it cannot itself run out of stack; scalars are never
    pushed, and a level of scalars only is recognised by its set of types (computed in
    C), so a flat array of a hundred thousand strings costs next to nothing.
    """
    level = [value]
    depth = 1
    while True:
        kinds = set(map(type, level))
        if dict not in kinds and list not in kinds:
            return False
        if depth > max_depth:
            return True
        containers = [item for item in level if isinstance(item, _CONTAINERS)]
        level = []
        extend = level.extend
        for container in containers:
            extend(container.values() if type(container) is dict else container)
        depth += 1


# A JSON string literal, escapes included (unrolled: no alternation per character).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def containers_exceed(raw: bytes, max_containers: int) -> bool:
    """Whether the JSON text ``raw`` opens more than ``max_containers`` arrays and objects.

    Counted on the bytes, so a body is refused before a single object is made: half a
    million tiny arrays in a megabyte cost the parser, the depth check and the garbage
    collector far more than the same megabyte of text. Brackets inside strings do not
    count; the strings are only looked at when the plain count is over the limit.
    """
    if _openers(raw) <= max_containers:
        return False
    return _openers(_STRING.sub(b"", raw)) > max_containers


def _openers(raw: bytes) -> int:
    return raw.count(b"[") + raw.count(b"{")


@functools.lru_cache(maxsize=4)
def _risky_numbers(max_integer_digits: int) -> re.Pattern[str]:
    """A run of more digits than the integer limit, or an exponent of three digits.

    Without either (a mantissa longer than 18 digits, or an exponent of three digits),
    no number literal can be too long an integer or a float beyond its range.
    """
    return re.compile(f"[0-9]{{{max_integer_digits + 1},}}|[eE][+-]?[0-9]{{3}}")


def parse_json_body(
    raw: bytes, *, max_depth: int, max_integer_digits: int, max_containers: int
) -> Any:
    """The JSON value of ``raw`` (UTF-8), within the nesting, integer and container limits.

    Raises:
        InvalidRequest: more than ``max_containers`` arrays and objects (checked on the
            bytes, before a single object is made), not UTF-8, not JSON, NaN or
            Infinity, a number that is not finite, an integer literal longer than
            ``max_integer_digits`` digits, or nesting deeper than ``max_depth``.
    """

    def bounded_int(text: str) -> int:
        digits = len(text) - (1 if text[:1] == "-" else 0)
        if digits > max_integer_digits:
            raise _Rejected("integer too long")
        return int(text)

    if containers_exceed(raw, max_containers):
        raise InvalidRequest("The request body holds too many arrays and objects.")
    try:
        text = raw.decode("utf-8")
        # A Python call per number literal costs more than parsing it: only a body with
        # a run of digits longer than the limit, or an exponent of three digits,
        # somewhere (in a string, perhaps) can hold an integer too long or a number that
        # is not finite, and needs each literal checked.
        risky = _risky_numbers(max_integer_digits).search(text) is not None
        value = json.loads(
            text,
            parse_int=bounded_int if risky else None,
            parse_float=_finite_float if risky else None,
            parse_constant=_reject_constant,
        )
    except _Rejected as exc:
        raise InvalidRequest("The request body holds a number this service cannot take.") from exc
    except RecursionError as exc:
        raise InvalidRequest("The request body is nested too deeply.") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidRequest(_NOT_JSON) from exc
    # A body cannot nest deeper than it has brackets (most bodies have a few).
    if _openers(raw) > max_depth and nesting_exceeds(value, max_depth):
        raise InvalidRequest("The request body is nested too deeply.")
    return value
