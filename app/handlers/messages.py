"""Messages endpoints (``listChannelMessages``, ``postChannelMessage``)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response

__all__ = ["list_channel_messages", "post_channel_message"]


def list_channel_messages(
    channel_id: str,
    limit: int = 50,
    before_message_id: str | None = None,
    parent_message_id: str | None = None,
) -> Response:
    """GET /api/v1/channels/{channel_id}/messages."""
    ctx = begin("listChannelMessages")
    page = ctx.use_cases.list_messages(
        ctx.actor,
        ctx.action,
        channel_id,
        limit=limit,
        before_message_id=before_message_id,
        parent_message_id=parent_message_id,
    )
    return json_response(page)


def post_channel_message(channel_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/channels/{channel_id}/messages: 201 stored, 200 idempotent replay."""
    ctx = begin("postChannelMessage")
    result = ctx.use_cases.post_message(ctx.actor, ctx.action, channel_id, body)
    return json_response(result.message, 201 if result.created else 200)
