"""Authorization query endpoints (``queryTriggerHolders``, ``explainDecision``)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response

__all__ = ["explain_decision", "query_trigger_holders"]


def query_trigger_holders(body: dict[str, Any]) -> Response:
    """POST /api/v1/authz/trigger-holders."""
    ctx = begin("queryTriggerHolders")
    return json_response(
        ctx.use_cases.query_trigger_holders(
            ctx.actor, ctx.action, body["channel_id"], body["principal_ids"]
        )
    )


def explain_decision(body: dict[str, Any]) -> Response:
    """POST /api/v1/authz/explain (instance owners)."""
    ctx = begin("explainDecision")
    return json_response(ctx.use_cases.explain_decision(ctx.actor, ctx.action, body))
