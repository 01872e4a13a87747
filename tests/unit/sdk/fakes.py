"""A fake of the runner's transport seam: records calls, answers from a script."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Answer = Callable[[dict[str, Any]], dict[str, Any]]

# Every relayed answer says which mode decided it; these fakes answer in mode own.
OWN = {"mode": "own"}


class FakeTransport:
    """Records every call; answers with ``answer(call)``."""

    def __init__(self, answer: Answer) -> None:
        self.calls: list[dict[str, Any]] = []
        self._answer = answer

    def comms(self, call: dict[str, Any]) -> dict[str, Any]:
        """Record ``call`` and answer it."""
        self.calls.append(call)
        return self._answer(call)


def posted(
    message_id: str = "3e550000-0000-4000-8000-000000000001", replayed: bool = False
) -> Answer:
    """Answer every post with a stored message."""

    def answer(call: dict[str, Any]) -> dict[str, Any]:
        return {
            "call_id": call["call_id"],
            "post_message": {"message": {"id": message_id}, "replayed": replayed},
            "acting_for": OWN,
        }

    return answer


def failed(code: str, message: str = "Not found", **extra: str) -> Answer:
    """Answer every call with an in-band error."""

    def answer(call: dict[str, Any]) -> dict[str, Any]:
        return {
            "call_id": call["call_id"],
            "error": {"code": code, "message": message, **extra},
            "acting_for": OWN,
        }

    return answer


def page(items: list[dict[str, Any]], has_more: bool = False) -> Answer:
    """Answer every listing with this page."""

    def answer(call: dict[str, Any]) -> dict[str, Any]:
        return {
            "call_id": call["call_id"],
            "list_messages": {"items": items, "has_more": has_more},
            "acting_for": OWN,
        }

    return answer


def message(message_id: str, handle: str, content: str, at: str, **extra: Any) -> dict[str, Any]:
    """A ``Message`` of the messages API, as the relay returns it."""
    return {
        "id": message_id,
        "channel_id": "c4a00000-0000-4000-8000-000000000010",
        "thread_id": "7a000000-0000-4000-8000-000000000001",
        "thread_seq": 1,
        "author": {"id": f"id-{handle}", "kind": "user", "handle": handle, "display_name": handle},
        "origin": "human",
        "kind": "text",
        "content_md": content,
        "created_at": at,
        "deleted": False,
        "attachments": [],
        **extra,
    }
