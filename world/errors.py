"""The loader's one error type and the paths it names (``spaces[0].channels[1].name``)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["WorldError", "format_path", "join_path"]


class WorldError(Exception):
    """A world fixture is invalid or conflicts with the database; nothing was written.

    ``path`` names the offending place (``spaces[0].channels[1].name``, ``$`` for the
    whole document, ``FILE:LINE:COLUMN`` for YAML syntax); ``message`` says what is
    wrong without quoting message content, display names or tokens.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def format_path(parts: Iterable[str | int]) -> str:
    """``["spaces", 0, "name"]`` as ``spaces[0].name``; the empty path is ``$``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "$"


def join_path(path: str, *parts: str | int) -> str:
    """``path`` extended by ``parts`` (``join_path("runs", 0, "agent")`` is ``runs[0].agent``)."""
    base: list[str | int] = [] if path == "$" else [path]
    return format_path([*base, *parts])
