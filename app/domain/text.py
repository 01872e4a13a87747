"""Text the service can store: what PostgreSQL ``text`` and UTF-8 refuse.

JSON allows ``\\u0000`` and lone UTF-16 surrogates such as ``\\ud800``; Python's
``json`` turns them into ``str`` values that PostgreSQL refuses (NUL) and that cannot
be encoded as UTF-8 (a surrogate without its pair), so neither may reach a database
or an encoder. The HTTP validators refuse them in every body (keys included) and the
relay refuses them per call, in band.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["is_unstorable"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def is_unstorable(text: str) -> bool:
    """Whether ``text`` holds a NUL or an unpaired surrogate."""
    return "\x00" in text or _SURROGATE.search(text) is not None
