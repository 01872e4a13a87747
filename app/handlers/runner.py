"""Runner endpoints: enrolment, session reports, reload, stop, run binding, comms relay.

Every handler authenticates a runner token (``begin_runner``); a principal's token is
401 here, and a runner token is 401 on every principal endpoint.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from app.handlers.common import begin_runner, json_response, no_content

__all__ = [
    "relay_comms_call",
    "runner_enroll",
    "runner_session_bind_run",
    "runner_session_reload",
    "runner_session_started",
    "runner_session_stop",
    "runner_session_unbind_run",
]


def runner_enroll() -> Response:
    """POST /api/v1/runner/enroll: a new enrolment; every binding of the runner is dropped."""
    ctx = begin_runner("runnerEnroll")
    return json_response(ctx.use_cases.enroll_runner(ctx.runner, ctx.action))


def runner_session_started(body: dict[str, Any]) -> Response:
    """POST /api/v1/runner/sessions: 201 bound now, 200 for a repeated report."""
    ctx = begin_runner("runnerSessionStarted")
    report = ctx.use_cases.report_session(
        ctx.runner, ctx.action, body["container_name"], body["session_id"]
    )
    return json_response(report.session, 201 if report.created else 200)


def runner_session_reload(session_id: str) -> Response:
    """POST /api/v1/runner/sessions/{session_id}/reload: the binding is kept."""
    ctx = begin_runner("runnerSessionReload")
    return json_response(ctx.use_cases.reload_session(ctx.runner, ctx.action, session_id))


def runner_session_stop(session_id: str) -> Response:
    """DELETE /api/v1/runner/sessions/{session_id}: the binding is deleted."""
    ctx = begin_runner("runnerSessionStop")
    ctx.use_cases.stop_session(ctx.runner, ctx.action, session_id)
    return no_content()


def runner_session_bind_run(session_id: str, body: dict[str, Any]) -> Response:
    """PUT /api/v1/runner/sessions/{session_id}/run: relayed calls act for the run's requester."""
    ctx = begin_runner("runnerSessionBindRun")
    return json_response(ctx.use_cases.bind_run(ctx.runner, ctx.action, session_id, body["run_id"]))


def runner_session_unbind_run(session_id: str) -> Response:
    """DELETE /api/v1/runner/sessions/{session_id}/run: relayed calls are the agent's own."""
    ctx = begin_runner("runnerSessionUnbindRun")
    ctx.use_cases.unbind_run(ctx.runner, ctx.action, session_id)
    return no_content()


def relay_comms_call(body: dict[str, Any]) -> Response:
    """POST /api/v1/runner/comms:relay: the call's own failures answer in-band with 200."""
    ctx = begin_runner("relayCommsCall")
    result = ctx.use_cases.relay_comms_call(
        ctx.runner, ctx.action, body["session_id"], body["call"]
    )
    return json_response(result)
