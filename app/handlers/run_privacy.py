"""Run privacy endpoints: provider attempts, run content writes, privacy read, envelope.

Every response carries ``Cache-Control: no-store``: these answers are never replayed
from a cache, by this service or by an intermediary (seed 004, no replay).
"""

from __future__ import annotations

from typing import Any

from connexion import request
from starlette.responses import Response

from app.domain.privacy import etag
from app.handlers.common import begin, json_response

__all__ = [
    "admin_set_provider_policy",
    "admin_set_task_policy",
    "append_run_step",
    "get_run_privacy",
    "put_run_answer",
    "record_provider_attempt",
    "rotate_run_envelope",
]


def _no_store(response: Response, version: int | None = None) -> Response:
    response.headers["Cache-Control"] = "no-store"
    if version is not None:
        response.headers["ETag"] = etag(version)
    return response


def record_provider_attempt(run_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/runs/{run_id}/provider-attempts: "go" only after the commit."""
    ctx = begin("recordProviderAttempt")
    result = ctx.use_cases.record_provider_attempt(ctx.actor, ctx.action, run_id, body)
    return _no_store(json_response(result))


def append_run_step(run_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/runs/{run_id}/steps."""
    ctx = begin("appendRunStep")
    result = ctx.use_cases.append_run_step(ctx.actor, ctx.action, run_id, body)
    return _no_store(json_response(result, 201))


def put_run_answer(run_id: str, body: dict[str, Any]) -> Response:
    """PUT /api/v1/runs/{run_id}/answer."""
    ctx = begin("putRunAnswer")
    result = ctx.use_cases.put_run_answer(ctx.actor, ctx.action, run_id, body["answer_md"])
    return _no_store(json_response(result))


def get_run_privacy(run_id: str) -> Response:
    """GET /api/v1/runs/{run_id}/privacy (ETag: the envelope version)."""
    ctx = begin("getRunPrivacy")
    view = ctx.use_cases.read_run_privacy(ctx.actor, ctx.action, run_id)
    return _no_store(json_response(view.body), view.envelope_version)


def rotate_run_envelope(run_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/runs/{run_id}/envelope:rotate (If-Match: the version read)."""
    ctx = begin("rotateRunEnvelope")
    version = ctx.use_cases.rotate_run_envelope(
        ctx.actor, ctx.action, run_id, request.headers.get("if-match", ""), body["sealed_envelope"]
    )
    return _no_store(json_response({"envelope_version": version}), version)


def admin_set_provider_policy(provider_id: str, body: dict[str, Any]) -> Response:
    """PUT /api/v1/admin/provider-policies/{provider_id}."""
    ctx = begin("adminSetProviderPolicy")
    return json_response(
        ctx.use_cases.admin.set_provider_policy(ctx.actor, ctx.action, provider_id, body)
    )


def admin_set_task_policy(task_key: str, body: dict[str, Any]) -> Response:
    """PUT /api/v1/admin/task-policies/{task_key}."""
    ctx = begin("adminSetTaskPolicy")
    return json_response(ctx.use_cases.admin.set_task_policy(ctx.actor, ctx.action, task_key, body))
