"""Admin facts API endpoints (instance owners; decided in Rego as ``admin.*``)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response, no_content
from app.usecases import admin
from app.usecases.admin import require, run_admin

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
    row = run_admin(
        ctx.services, ctx.actor, ctx.action, lambda _uow, repo: admin.create_grant(repo, body)
    )
    return json_response(row, 201)


def admin_delete_grant(grant_id: str) -> Response:
    """DELETE /api/v1/admin/grants/{grant_id}."""
    ctx = begin("adminDeleteGrant")
    run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: require(repo.delete_grant(grant_id) or None),
    )
    return no_content()


def admin_update_principal(principal_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/principals/{principal_id}."""
    ctx = begin("adminUpdatePrincipal")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: require(repo.update_principal(principal_id, body["status"])),
    )
    return json_response(row)


def admin_update_space(space_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/spaces/{space_id}."""
    ctx = begin("adminUpdateSpace")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: require(repo.update_space(space_id, body["archived"])),
    )
    return json_response(row)


def admin_update_channel(channel_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/channels/{channel_id}."""
    ctx = begin("adminUpdateChannel")
    backfill_max = ctx.services.settings.integer("channel.history_backfill_limit_max")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: admin.update_channel(repo, channel_id, body, backfill_max),
    )
    return json_response(row)


def admin_move_thread(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/move."""
    ctx = begin("adminMoveThread")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: admin.move_thread(repo, thread_id, body["channel_id"]),
    )
    return json_response(row)


def admin_create_run(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/runs."""
    ctx = begin("adminCreateRun")
    row = run_admin(
        ctx.services, ctx.actor, ctx.action, lambda _uow, repo: admin.create_run(repo, body)
    )
    return json_response(row, 201)


def admin_update_run(run_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/runs/{run_id}."""
    ctx = begin("adminUpdateRun")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: require(repo.update_run(run_id, body["state"])),
    )
    return json_response(row)


def admin_create_followup(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/followups."""
    ctx = begin("adminCreateFollowup")
    row = run_admin(
        ctx.services, ctx.actor, ctx.action, lambda _uow, repo: admin.create_followup(repo, body)
    )
    return json_response(row, 201)


def admin_update_followup(followup_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/followups/{followup_id}."""
    ctx = begin("adminUpdateFollowup")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: require(repo.update_followup(followup_id, body["state"])),
    )
    return json_response(row)


def admin_set_thread_session(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/session (mode reset or bind)."""
    ctx = begin("adminSetThreadSession")
    row = run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda _uow, repo: admin.set_session(repo, thread_id, body),
    )
    return json_response(row)


def admin_delete_message(message_id: str) -> Response:
    """DELETE /api/v1/admin/messages/{message_id} (tombstone)."""
    ctx = begin("adminDeleteMessage")
    run_admin(
        ctx.services,
        ctx.actor,
        ctx.action,
        lambda uow, _repo: admin.delete_message(uow, message_id),
    )
    return no_content()
