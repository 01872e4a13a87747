"""Run endpoints (``getRunContext``)."""

from __future__ import annotations

from starlette.responses import Response

from app.handlers.common import begin, json_response
from app.usecases.run_context import read_run_context

__all__ = ["get_run_context"]


def get_run_context(run_id: str) -> Response:
    """GET /api/v1/runs/{run_id}/context: run_context.v1 for the agent's own active run."""
    ctx = begin("getRunContext")
    return json_response(read_run_context(ctx.services, ctx.actor, ctx.action, run_id))
