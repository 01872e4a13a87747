"""Admin facts API endpoints (instance owners; decided in Rego as ``admin.*``).

Each endpoint calls one method of :class:`app.usecases.admin.AdminWrites` with the
authenticated actor, the operation's action and the request, and shapes its answer.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response, no_content

__all__ = [
    "admin_create_followup",
    "admin_create_grant",
    "admin_create_run",
    "admin_delete_grant",
    "admin_delete_message",
    "admin_move_thread",
    "admin_set_thread_session",
    "admin_update_channel",
    "admin_update_followup",
    "admin_update_principal",
    "admin_update_run",
    "admin_update_space",
]


def admin_create_grant(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/grants."""
    ctx = begin("adminCreateGrant")
    return json_response(ctx.use_cases.admin.create_grant(ctx.actor, ctx.action, body), 201)


def admin_delete_grant(grant_id: str) -> Response:
    """DELETE /api/v1/admin/grants/{grant_id}."""
    ctx = begin("adminDeleteGrant")
    ctx.use_cases.admin.delete_grant(ctx.actor, ctx.action, grant_id)
    return no_content()


def admin_update_principal(principal_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/principals/{principal_id}."""
    ctx = begin("adminUpdatePrincipal")
    return json_response(
        ctx.use_cases.admin.update_principal(ctx.actor, ctx.action, principal_id, body)
    )


def admin_update_space(space_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/spaces/{space_id}."""
    ctx = begin("adminUpdateSpace")
    return json_response(ctx.use_cases.admin.update_space(ctx.actor, ctx.action, space_id, body))


def admin_update_channel(channel_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/channels/{channel_id}."""
    ctx = begin("adminUpdateChannel")
    return json_response(
        ctx.use_cases.admin.update_channel(ctx.actor, ctx.action, channel_id, body)
    )


def admin_move_thread(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/move."""
    ctx = begin("adminMoveThread")
    return json_response(ctx.use_cases.admin.move_thread(ctx.actor, ctx.action, thread_id, body))


def admin_create_run(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/runs."""
    ctx = begin("adminCreateRun")
    return json_response(ctx.use_cases.admin.create_run(ctx.actor, ctx.action, body), 201)


def admin_update_run(run_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/runs/{run_id}."""
    ctx = begin("adminUpdateRun")
    return json_response(ctx.use_cases.admin.update_run(ctx.actor, ctx.action, run_id, body))


def admin_create_followup(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/followups."""
    ctx = begin("adminCreateFollowup")
    return json_response(ctx.use_cases.admin.create_followup(ctx.actor, ctx.action, body), 201)


def admin_update_followup(followup_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/followups/{followup_id}."""
    ctx = begin("adminUpdateFollowup")
    return json_response(
        ctx.use_cases.admin.update_followup(ctx.actor, ctx.action, followup_id, body)
    )


def admin_set_thread_session(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/session (mode reset or bind)."""
    ctx = begin("adminSetThreadSession")
    return json_response(ctx.use_cases.admin.set_session(ctx.actor, ctx.action, thread_id, body))


def admin_delete_message(message_id: str) -> Response:
    """DELETE /api/v1/admin/messages/{message_id} (tombstone)."""
    ctx = begin("adminDeleteMessage")
    ctx.use_cases.admin.delete_message(ctx.actor, ctx.action, message_id)
    return no_content()
