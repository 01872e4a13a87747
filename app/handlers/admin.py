"""Admin facts API endpoints (instance owners; decided in Rego as ``admin.*``).

Every endpoint is one line: :func:`admin_operation` authenticates, authorizes the
operation's action on the instance and runs the write in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.responses import Response

from app.handlers.common import begin, json_response, no_content
from app.services import current_services
from app.usecases import admin
from app.usecases.admin import require
from repositories.admin import AdminRepository
from repositories.unit_of_work import UnitOfWork

__all__ = [
    "admin_create_followup",
    "admin_create_grant",
    "admin_create_run",
    "admin_delete_grant",
    "admin_delete_message",
    "admin_move_thread",
    "admin_operation",
    "admin_set_thread_session",
    "admin_update_channel",
    "admin_update_followup",
    "admin_update_principal",
    "admin_update_run",
    "admin_update_space",
]

Work = Callable[[UnitOfWork, AdminRepository], Any]


def admin_operation(operation_id: str, work: Work, status: int = 200) -> Response:
    """Authenticate, authorize ``operation_id``'s action on the instance and run ``work``
    in one transaction; the response carries its result (``status``; 204: no body).
    """
    ctx = begin(operation_id)
    result = ctx.use_cases.run_admin(ctx.actor, ctx.action, work)
    return no_content() if status == 204 else json_response(result, status)


def admin_create_grant(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/grants."""
    return admin_operation("adminCreateGrant", lambda _u, repo: admin.create_grant(repo, body), 201)


def admin_delete_grant(grant_id: str) -> Response:
    """DELETE /api/v1/admin/grants/{grant_id}."""
    return admin_operation(
        "adminDeleteGrant", lambda _u, repo: require(repo.delete_grant(grant_id) or None), 204
    )


def admin_update_principal(principal_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/principals/{principal_id}."""
    return admin_operation(
        "adminUpdatePrincipal",
        lambda _u, repo: admin.update_principal(repo, principal_id, body),
    )


def admin_update_space(space_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/spaces/{space_id}."""
    return admin_operation(
        "adminUpdateSpace", lambda _u, repo: require(repo.update_space(space_id, body["archived"]))
    )


def admin_update_channel(channel_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/channels/{channel_id}."""
    backfill_max = current_services().settings.integer("channel.history_backfill_limit_max")
    return admin_operation(
        "adminUpdateChannel",
        lambda _u, repo: admin.update_channel(repo, channel_id, body, backfill_max),
    )


def admin_move_thread(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/move."""
    return admin_operation(
        "adminMoveThread", lambda _u, repo: admin.move_thread(repo, thread_id, body["channel_id"])
    )


def admin_create_run(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/runs."""
    return admin_operation("adminCreateRun", lambda _u, repo: admin.create_run(repo, body), 201)


def admin_update_run(run_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/runs/{run_id}."""
    return admin_operation(
        "adminUpdateRun", lambda _u, repo: require(repo.update_run(run_id, body["state"]))
    )


def admin_create_followup(body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/followups."""
    return admin_operation(
        "adminCreateFollowup", lambda _u, repo: admin.create_followup(repo, body), 201
    )


def admin_update_followup(followup_id: str, body: dict[str, Any]) -> Response:
    """PATCH /api/v1/admin/followups/{followup_id}."""
    return admin_operation(
        "adminUpdateFollowup",
        lambda _u, repo: require(repo.update_followup(followup_id, body["state"])),
    )


def admin_set_thread_session(thread_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/admin/threads/{thread_id}/session (mode reset or bind)."""
    return admin_operation(
        "adminSetThreadSession", lambda _u, repo: admin.set_session(repo, thread_id, body)
    )


def admin_delete_message(message_id: str) -> Response:
    """DELETE /api/v1/admin/messages/{message_id} (tombstone)."""
    return admin_operation(
        "adminDeleteMessage", lambda uow, _r: admin.delete_message(uow, message_id), 204
    )
