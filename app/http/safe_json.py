"""Parse an untrusted JSON body without letting the parser fail with a 500.

Python's ``json`` has three traps for hostile input: deep nesting raises
``RecursionError``, an integer literal longer than 4,300 digits raises ``ValueError``
(``sys.get_int_max_str_digits``), and the non-JSON literals ``NaN`` and ``Infinity``
are accepted. :func:`parse_json_body` turns each of them into 400
``invalid_request``, bounds integer literals to ``http.max_json_integer_digits``
digits before they are converted, rejects non-finite numbers, and bounds nesting to
``http.max_json_depth`` before any schema validator walks the document (jsonschema
validation recurses too).
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from app.errors import InvalidRequest

__all__ = ["nesting_exceeds", "parse_json_body"]

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


def nesting_exceeds(value: Any, max_depth: int) -> bool:
    """True when ``value`` nests arrays and objects deeper than ``max_depth`` levels.

    Iterative, level by level, so it cannot itself run out of stack; scalars are never
    pushed, so a flat array of a hundred thousand numbers costs one pass over it.
    """
    level = [value]
    depth = 1
    while True:
        containers = [item for item in level if isinstance(item, dict | list)]
        if not containers:
            return False
        if depth > max_depth:
            return True
        level = []
        for container in containers:
            level.extend(container.values() if isinstance(container, dict) else container)
        depth += 1


@functools.lru_cache(maxsize=4)
def _digit_run(length: int) -> re.Pattern[str]:
    return re.compile(f"[0-9]{{{length},}}")


def parse_json_body(raw: bytes, *, max_depth: int, max_integer_digits: int) -> Any:
    """The JSON value of ``raw`` (UTF-8), within the nesting and integer limits.

    Raises:
        InvalidRequest: not UTF-8, not JSON, NaN or Infinity, a number that is not
            finite, an integer literal longer than ``max_integer_digits`` digits, or
            nesting deeper than ``max_depth``.
    """

    def bounded_int(text: str) -> int:
        digits = len(text) - (1 if text[:1] == "-" else 0)
        if digits > max_integer_digits:
            raise _Rejected("integer too long")
        return int(text)

    try:
        text = raw.decode("utf-8")
        # A Python call per integer literal costs more than parsing it: only a body with
        # a run of digits longer than the limit somewhere (in a string, perhaps) needs
        # each literal checked.
        too_long = _digit_run(max_integer_digits + 1).search(text) is not None
        value = json.loads(
            text,
            parse_int=bounded_int if too_long else None,
            parse_float=_finite_float,
            parse_constant=_reject_constant,
        )
    except _Rejected as exc:
        raise InvalidRequest("The request body holds a number this service cannot take.") from exc
    except RecursionError as exc:
        raise InvalidRequest("The request body is nested too deeply.") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidRequest(_NOT_JSON) from exc
    if nesting_exceeds(value, max_depth):
        raise InvalidRequest("The request body is nested too deeply.")
    return value
