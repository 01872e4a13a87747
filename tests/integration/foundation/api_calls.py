"""Request helpers shared by the foundation tests of the messages and admin APIs."""

from __future__ import annotations

from typing import Any

from tests.integration.foundation.conftest import messages_path

__all__ = ["grant_body", "post_message"]


def post_message(client: Any, channel_id: str, content: str, **fields: Any) -> Any:
    """Post ``content`` (and any other request fields) to the channel's messages."""
    return client.post(messages_path(channel_id), json={"content_md": content, **fields})


def grant_body(subject: str, target_kind: str, target: str, level: str) -> dict[str, Any]:
    """The body of ``adminCreateGrant`` for a principal on a space or channel."""
    return {
        "subject": {"kind": "principal", "id": subject},
        "target": {"kind": target_kind, "id": target},
        "level": level,
    }
