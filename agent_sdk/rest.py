"""Typed REST clients over the generated client (``agent_sdk.client``).

* :class:`PrincipalClient` holds a principal's token (an agent's or a person's): run
  context, messages, workspace provisioning.
* :class:`RunnerClient` holds a runner token: enrolment, session reports and the comms
  relay. It lives in the runner process; the runner token never enters the agent's
  container (the agent side talks to the runner through a
  :class:`~agent_sdk.comms.CommsTransport` and holds no token).

Both keep one pooled ``httpx.Client`` (keep-alive connections), apply a timeout to
every request, and map Problem JSON answers to :class:`~agent_sdk.errors.ApiProblem`
subclasses. Retries happen only where they are safe: connection failures before a
request was sent are retried for every call (by the transport); a 503, a timeout or
a reset connection is retried only for reads and for relay calls, which are
idempotent (listing reads; a relayed post carries its idempotency key).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any, Self, TypeVar

import httpx

from agent_sdk.client import AuthenticatedClient
from agent_sdk.client.api.messages import list_channel_messages, post_channel_message
from agent_sdk.client.api.runner import (
    relay_comms_call,
    runner_enroll,
    runner_session_reload,
    runner_session_started,
    runner_session_stop,
)
from agent_sdk.client.api.runs import get_run_context
from agent_sdk.client.api.workspaces import provision_workspace
from agent_sdk.client.models import (
    Message,
    MessagePage,
    PostMessageRequest,
    ProvisionWorkspaceRequest,
    RelayErrorResult,
    RelayListResult,
    RelayPostResult,
    RelayRequest,
    RunContext,
    RunnerEnrollment,
    RunnerSession,
    RunnerSessionReport,
    Workspace,
)
from agent_sdk.client.types import UNSET, Response
from agent_sdk.errors import SdkError, ServiceUnavailable, TransportFailure, problem_error

__all__ = ["PrincipalClient", "RunnerClient"]

T = TypeVar("T")


class _Base:
    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """``transport`` replaces the pooled HTTP transport (tests pass a mock)."""
        self._retries = retries
        self._backoff = backoff
        self._client = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=token,
            timeout=httpx.Timeout(timeout),
            # retries=N on the transport repeats only failed connection attempts, before
            # anything was sent: safe for every method.
            httpx_args={"transport": transport or httpx.HTTPTransport(retries=retries)},
            raise_on_unexpected_status=False,
        )

    def close(self) -> None:
        """Close the pooled connections."""
        self._client.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _send(self, send: Callable[[], Response[Any]], *, idempotent: bool) -> Response[Any]:
        """A 2xx response; Problem answers raise, retried only when ``idempotent``."""
        attempt = 0
        while True:
            try:
                response = send()
            except (httpx.TimeoutException, httpx.NetworkError) as exc:
                if not idempotent or attempt >= self._retries:
                    name = type(exc).__name__
                    raise TransportFailure(f"no answer from the service ({name})") from exc
            else:
                status = int(response.status_code)
                if 200 <= status < 300:
                    return response
                error = problem_error(
                    status, _json(response.content), response.headers.get("retry-after")
                )
                if not (isinstance(error, ServiceUnavailable) and idempotent):
                    raise error
                if attempt >= self._retries:
                    raise error
            attempt += 1
            time.sleep(self._backoff * 2 ** (attempt - 1))

    def _call(self, send: Callable[[], Response[Any]], expected: type[T], *, idempotent: bool) -> T:
        parsed = self._send(send, idempotent=idempotent).parsed
        if not isinstance(parsed, expected):
            raise TransportFailure("the service answered an unexpected body")
        return parsed


def _json(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return None


class PrincipalClient(_Base):
    """The endpoints a principal calls with its own token (an agent or a person).

    Example::

        with PrincipalClient("http://127.0.0.1:8080", "tok-lotse") as agent:
            context = agent.run_context(run_id)
    """

    def run_context(self, run_id: str) -> RunContext:
        """``getRunContext``: the context of the agent's own active run."""
        return self._call(
            lambda: get_run_context.sync_detailed(uuid.UUID(run_id), client=self._client),
            RunContext,
            idempotent=True,
        )

    def list_messages(
        self, channel_id: str, *, limit: int = 50, before_message_id: str | None = None
    ) -> MessagePage:
        """``listChannelMessages``: one page of the main thread, oldest first."""
        before = uuid.UUID(before_message_id) if before_message_id else UNSET
        return self._call(
            lambda: list_channel_messages.sync_detailed(
                uuid.UUID(channel_id), client=self._client, limit=limit, before_message_id=before
            ),
            MessagePage,
            idempotent=True,
        )

    def post_message(
        self, channel_id: str, content_md: str, *, client_request_id: str | None = None
    ) -> Message:
        """``postChannelMessage`` (retried on 503 only with an idempotency key)."""
        body = PostMessageRequest(
            content_md=content_md,
            client_request_id=client_request_id if client_request_id else UNSET,
        )
        return self._call(
            lambda: post_channel_message.sync_detailed(
                uuid.UUID(channel_id), client=self._client, body=body
            ),
            Message,
            idempotent=client_request_id is not None,
        )

    def provision_workspace(self, agent_id: str, runner_id: str) -> Workspace:
        """``provisionWorkspace``: a new container of ``runner_id`` acting as the agent."""
        body = ProvisionWorkspaceRequest(runner_id=uuid.UUID(runner_id))
        return self._call(
            lambda: provision_workspace.sync_detailed(
                uuid.UUID(agent_id), client=self._client, body=body
            ),
            Workspace,
            idempotent=False,
        )


class RunnerClient(_Base):
    """The runner endpoints, authenticated with the runner's token (runner side only).

    Example::

        with RunnerClient("http://127.0.0.1:8080", "tok-runner-1") as runner:
            runner.enroll()
            runner.session_started(container_name, "session-1")
            result = runner.relay("session-1", {"call_id": "c1", "list_messages": {}})
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

    def relay(self, session_id: str, call: dict[str, Any]) -> dict[str, Any]:
        """``relayCommsCall``: the call's JSON result (its failure in-band under ``error``).

        The envelope is built from the contract's models before sending (a call that
        is not one of the union's members fails here); the answer is returned as the
        service sent it, so the runner can forward it to the agent unchanged.

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
