"""The REST client of a runner, authenticated with the runner's token.

:class:`RunnerClient`: enrolment, session reports, binding the run a session works on,
and the comms relay. It lives in the runner process; the runner token never enters the
agent's container (the agent side talks to the runner through a
:class:`~agent_sdk.comms.CommsTransport` and holds no token).
"""

from __future__ import annotations

import json
from typing import Any

from agent_sdk.client.api.runner import (
    relay_comms_call,
    runner_enroll,
    runner_session_bind_run,
    runner_session_reload,
    runner_session_started,
    runner_session_stop,
    runner_session_unbind_run,
)
from agent_sdk.client.models import (
    BindRunRequest,
    RelayErrorResult,
    RelayListResult,
    RelayPostResult,
    RelayRequest,
    RunnerEnrollment,
    RunnerSession,
    RunnerSessionReport,
)
from agent_sdk.errors import SdkError, TransportFailure
from agent_sdk.rest._base import ClientBase, as_uuid

__all__ = ["RunnerClient"]


class RunnerClient(ClientBase):
    """The runner endpoints, authenticated with the runner's token (runner side only).

    Example::

        with RunnerClient("http://127.0.0.1:8080", "tok-runner-1") as runner:
            runner.enroll()
            runner.session_started(container_name, "session-1")
            runner.bind_run("session-1", run_id)  # calls now act for the run's requester
            result = runner.relay("session-1", {"call_id": "c1", "list_messages": {}})
            runner.unbind_run("session-1")
    """

    def enroll(self) -> RunnerEnrollment:
        """``runnerEnroll``: a new enrolment; every binding of the runner is dropped."""
        return self._call(
            lambda: runner_enroll.sync_detailed(client=self._client),
            RunnerEnrollment,
            idempotent=False,
        )

    def session_started(self, container_name: str, session_id: str) -> RunnerSession:
        """``runnerSessionStarted``: bind the container's session (a repeat is harmless)."""
        body = RunnerSessionReport(container_name=container_name, session_id=session_id)
        return self._call(
            lambda: runner_session_started.sync_detailed(client=self._client, body=body),
            RunnerSession,
            idempotent=True,
        )

    def session_reloaded(self, session_id: str) -> RunnerSession:
        """``runnerSessionReload``: the binding is kept."""
        return self._call(
            lambda: runner_session_reload.sync_detailed(session_id, client=self._client),
            RunnerSession,
            idempotent=True,
        )

    def session_stopped(self, session_id: str) -> None:
        """``runnerSessionStop``: the binding is deleted."""
        self._send(
            lambda: runner_session_stop.sync_detailed(session_id, client=self._client),
            idempotent=False,
        )

    def bind_run(self, session_id: str, run_id: str) -> RunnerSession:
        """``runnerSessionBindRun``: the session's relayed calls act for the run's requester.

        While the run is queued, running or waiting for input, every call relayed
        through the session is decided for the agent and for the run's requester (the
        author of its triggering message); the answer's ``acting_for`` says
        ``{"mode": "run", "run_id"}``. Bind before relaying the calls of a run: the
        agent in the container cannot name or change the run. Retried like a read (a
        repeated ``PUT`` binds the same run).

        Raises:
            NotFound: an unknown, ended or other agent's run, or an unknown, stopped,
                stale or foreign session (one answer for all).
            Forbidden: the runner never enrolled (``reason`` ``not_enrolled``).
            SdkError: ``run_id`` is not a UUID (nothing was sent).
        """
        body = BindRunRequest(run_id=as_uuid(run_id, "run_id"))
        return self._call(
            lambda: runner_session_bind_run.sync_detailed(
                session_id, client=self._client, body=body
            ),
            RunnerSession,
            idempotent=True,
        )

    def unbind_run(self, session_id: str) -> None:
        """``runnerSessionUnbindRun``: the session's relayed calls are the agent's own again.

        Retried like a read (unbinding twice leaves the same state).

        Raises:
            NotFound: an unknown, stopped, stale or foreign session.
        """
        self._send(
            lambda: runner_session_unbind_run.sync_detailed(session_id, client=self._client),
            idempotent=True,
        )

    def relay(self, session_id: str, call: dict[str, Any]) -> dict[str, Any]:
        """``relayCommsCall``: the call's JSON result (its failure in-band under ``error``).

        The envelope is built from the contract's models before sending (a call that
        is not one of the union's members fails here); the answer is returned as the
        service sent it, so the runner can forward it to the agent unchanged. Its
        ``acting_for`` says which mode decided it: ``{"mode": "run", "run_id"}``
        with a live run bound to the session (:meth:`bind_run`), else
        ``{"mode": "own"}``.

        Raises:
            ValidationFailed, NotFound, Forbidden, ...: the envelope's Problem answers.
            SdkError: ``call`` is not a member of the call union.
        """
        try:
            body = RelayRequest.from_dict({"session_id": session_id, "call": call})
        except (KeyError, TypeError, ValueError) as exc:
            raise SdkError("the call is not a post_message or list_messages call") from exc
        response = self._send(
            lambda: relay_comms_call.sync_detailed(client=self._client, body=body),
            idempotent=True,
        )
        if not isinstance(response.parsed, RelayPostResult | RelayListResult | RelayErrorResult):
            raise TransportFailure("the service answered an unexpected body")
        result: dict[str, Any] = json.loads(response.content)
        return result
