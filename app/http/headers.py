"""Reading one request header from an ASGI scope, before Starlette builds a request.

The edge middlewares (correlation, body limit, admission) run below Starlette's
``Request`` and read the raw header list; header names there are lower case bytes.
"""

from __future__ import annotations

from starlette.types import Scope

__all__ = ["header_value"]


def header_value(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case), decoded as Latin-1, or ``None``."""
    for key, value in scope.get("headers", []):
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None
