"""Bounded, escaped echoes of client-chosen text in error answers.

A 422 names where a violation is (``body/context/providers/<key>``) and, for a closed
object, which fields were unknown. Both can hold a key the client chose, and a key can
be anything JSON allows: a megabyte long, NUL, a lone UTF-16 surrogate (which
``json.loads`` accepts from ``"\\udc80"`` and orjson refuses to encode), line breaks
or text that forges a path. Every such echo goes through :func:`echo` (a value) or
:func:`pointer_segment` (a segment of a path), so an error body:

* never holds more than :data:`ECHO_MAX` characters of one client-chosen key;
* never holds a character orjson cannot encode or a log line could be split on: C0
  and C1 controls, DEL, surrogates and the line and paragraph separators are written
  as ``\\uXXXX`` (and a backslash as ``\\\\``, so the escape is unambiguous);
* cannot be read as a different path: ``~`` and ``/`` in a path segment are written
  as ``~0`` and ``~1`` (RFC 6901, JSON Pointer).

No error builder may fail: these functions accept any ``str`` and return a string
orjson can always encode.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["ECHO_MAX", "NAMES_MAX", "PATH_MAX", "echo", "join_path", "name_list", "pointer_segment"]

# Characters of one client-chosen key (after escaping) an error may repeat.
ECHO_MAX: Final = 64
# Characters of a whole error path; deeper paths keep their start and are cut.
PATH_MAX: Final = 512
# Unknown field names one message lists; the rest are counted.
NAMES_MAX: Final = 5
_CUT: Final = "..."
_UNSAFE: Final = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\\\" if char == "\\" else f"\\u{ord(char):04x}"


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(_CUT)] + _CUT


def echo(text: str, limit: int = ECHO_MAX) -> str:
    """``text`` escaped (controls, surrogates, backslash) and cut to ``limit`` characters.

    Only a prefix of ``text`` is looked at, so a megabyte-long key costs no more than a
    short one.
    """
    # Each character escapes to at most 6, so this prefix is always enough.
    return _bounded(_UNSAFE.sub(_escape, text[: limit + 1]), limit)


def pointer_segment(text: str) -> str:
    """One segment of an error path: :func:`echo` after JSON Pointer escaping."""
    return echo(text[: ECHO_MAX + 1].replace("~", "~0").replace("/", "~1"))


def join_path(prefix: str, parts: Iterable[object]) -> str:
    """``prefix/part/part/...`` with each string part a :func:`pointer_segment`.

    Integers (array indexes) are written as they are; the result holds at most
    :data:`PATH_MAX` characters.
    """
    segments = [prefix]
    length = len(prefix)
    for part in parts:
        segment = str(part) if isinstance(part, int) else pointer_segment(str(part))
        segments.append(segment)
        length += len(segment) + 1
        if length > PATH_MAX:
            break
    return _bounded("/".join(segments), PATH_MAX)


def name_list(names: Iterable[str]) -> str:
    """At most :data:`NAMES_MAX` names, each echoed, and how many more there were."""
    shown: list[str] = []
    more = 0
    for name in names:
        if len(shown) < NAMES_MAX:
            shown.append(echo(name))
        else:
            more += 1
    text = ", ".join(shown)
    return f"{text} and {more} more" if more else text
