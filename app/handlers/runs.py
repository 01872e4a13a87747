"""Run endpoints (``getRunContext``)."""

from __future__ import annotations

from starlette.responses import Response

from app.handlers.common import begin, json_response

__all__ = ["get_run_context"]


def get_run_context(run_id: str) -> Response:
    """GET /api/v1/runs/{run_id}/context: run_context.v1 for the agent's own active run."""
    ctx = begin("getRunContext")
    return json_response(ctx.use_cases.read_run_context(ctx.actor, ctx.action, run_id))
