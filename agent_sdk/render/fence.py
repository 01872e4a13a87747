"""The two guards every render applies: an unguessable fence and shape-checked attributes.

* :func:`mint_fence`: a fresh random token per render (64 bits, hex), re-minted in the
  unlikely case that any text of the render already contains it, so no body, name or
  transcript can contain the fence: a body cannot write what it cannot guess.
* :func:`attr`: an attribute value (id, author handle, time, parent, trust, ...) is
  rendered only when it fully matches ``[\\w.:-]+`` over ASCII; anything else (a
  quote that would close the attribute early, a newline that would split the tag,
  an empty value that would read as "nobody") becomes ``(malformed <fence>)``, or a
  bare ``(malformed)`` where there is no fence (the post-return text, error codes).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Iterable
from typing import Final

__all__ = ["ATTRIBUTE", "MALFORMED", "attr", "is_attribute", "mint_fence", "utc_time"]

ATTRIBUTE: Final = re.compile(r"[\w.:-]+", re.ASCII)
MALFORMED: Final = "(malformed)"


def is_attribute(value: object) -> bool:
    """Whether ``value`` is a string that may stand in an attribute as it is."""
    return isinstance(value, str) and ATTRIBUTE.fullmatch(value) is not None


def attr(value: object, fence: str | None = None) -> str:
    """``value`` if it has the attribute shape, else the (fenced) malformed marker."""
    if is_attribute(value):
        return str(value)
    return f"(malformed {fence})" if fence else MALFORMED


def mint_fence(texts: Iterable[str]) -> str:
    """A fresh fence that occurs in none of ``texts``."""
    corpus = list(texts)
    while True:
        fence = secrets.token_hex(8)
        if not any(fence in text for text in corpus):
            return fence


def utc_time(value: object) -> str | None:
    """An RFC 3339 time (string or datetime) as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC, or ``None``."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
