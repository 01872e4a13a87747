"""Session context endpoint (``resolveSessionContext``)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response

__all__ = ["resolve_session_context"]


def resolve_session_context(body: dict[str, Any]) -> Response:
    """POST /api/v1/agents/session-context/resolve (a person's session token)."""
    ctx = begin("resolveSessionContext")
    return json_response(ctx.use_cases.resolve_session_context(ctx.actor, ctx.action, body))
