"""Workspace provisioning (``provisionWorkspace``), by a person allowed in Rego."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response

__all__ = ["provision_workspace"]


def provision_workspace(agent_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/agents/{agent_id}/workspaces: 201 with the minted container name."""
    ctx = begin("provisionWorkspace")
    binding = ctx.use_cases.provision_workspace(ctx.actor, ctx.action, agent_id, body["runner_id"])
    return json_response(binding, 201)
