"""Run privacy endpoints: provider attempts, run content writes, privacy read, envelope.

Every response carries ``Cache-Control: no-store``: these answers are never replayed
from a cache, by this service or by an intermediary (decisions.md S4-5). The use
cases answer with domain values; the bodies (the ``RunCeilings`` schema) are written
here.
"""

from __future__ import annotations

from typing import Any

from connexion import request
from starlette.responses import Response

from app.domain.privacy import Ceilings, etag
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


def _ceilings(ceilings: Ceilings) -> dict[str, dict[str, Any]]:
    """The ``RunCeilings`` schema of a run's ceilings."""
    return {kind: {"level": c.level, "explicit": c.explicit} for kind, c in ceilings.items()}


def _no_store(response: Response, version: int | None = None) -> Response:
    response.headers["Cache-Control"] = "no-store"
    if version is not None:
        response.headers["ETag"] = etag(version)
    return response


def record_provider_attempt(run_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/runs/{run_id}/provider-attempts: "go" only after the commit."""
    ctx = begin("recordProviderAttempt")
    ceilings = ctx.use_cases.record_provider_attempt(ctx.actor, ctx.action, run_id, body)
    return _no_store(json_response({"outcome": "go", "ceilings": _ceilings(ceilings)}))


def append_run_step(run_id: str, body: dict[str, Any]) -> Response:
    """POST /api/v1/runs/{run_id}/steps."""
    ctx = begin("appendRunStep")
    step = ctx.use_cases.append_run_step(ctx.actor, ctx.action, run_id, body)
    result = {"seq": step.seq, "kept": step.kept, "ceilings": _ceilings(step.ceilings)}
    return _no_store(json_response(result, 201))


def put_run_answer(run_id: str, body: dict[str, Any]) -> Response:
    """PUT /api/v1/runs/{run_id}/answer."""
    ctx = begin("putRunAnswer")
    put = ctx.use_cases.put_run_answer(ctx.actor, ctx.action, run_id, body["answer_md"])
    return _no_store(json_response({"stored": put.stored, "ceilings": _ceilings(put.ceilings)}))


def get_run_privacy(run_id: str) -> Response:
    """GET /api/v1/runs/{run_id}/privacy (ETag: the envelope version)."""
    ctx = begin("getRunPrivacy")
    state = ctx.use_cases.read_run_privacy(ctx.actor, ctx.action, run_id)
    result: dict[str, Any] = {"attempted_provider_ids": list(state.attempted_provider_ids)}
    if state.ceilings is not None:
        result["ceilings"] = _ceilings(state.ceilings)
    return _no_store(json_response(result), state.envelope_version)


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
