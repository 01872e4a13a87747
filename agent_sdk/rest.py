"""Typed REST clients over the generated client (``agent_sdk.client``).

* :class:`PrincipalClient` holds a principal's token (an agent's or a person's): run
  context, messages, workspace provisioning, and the run privacy operations an agent's
  adapter calls around every provider attempt (the recorder of
  :class:`~agent_sdk.privacy.GuardedDispatcher`).
* :class:`RunnerClient` holds a runner token: enrolment, session reports, binding the
  run a session works on, and the comms relay. It lives in the runner process; the
  runner token never enters the agent's container (the agent side talks to the
  runner through a :class:`~agent_sdk.comms.CommsTransport` and holds no token).

Both keep one pooled ``httpx.Client`` (keep-alive connections), apply a timeout to
every request, and map Problem JSON answers to :class:`~agent_sdk.errors.ApiProblem`
subclasses (a body the contract does not allow is a
:class:`~agent_sdk.errors.TransportFailure`). Retries happen only where they are safe:
connection failures before a request was sent are retried for every call (by the
transport); a 503, a timeout or a reset connection is retried only for calls the API
makes idempotent:

* reads, and relay calls (listing reads; a relayed post carries its idempotency key);
* binding a run to a session and unbinding it (a ``PUT`` and a ``DELETE`` that leave
  the same state when repeated);
* a post with its idempotency key (``client_request_id``);
* a provider attempt: the retry sends the same ``attempt_id``, and the service runs
  the guard again under the run-row lock without appending the provider twice;
* the background answer: a ``PUT`` that replaces the answer with the same text.

A step (each append stores a new one) and an envelope rotation (compare and swap: a
retry of a rotation that was applied would answer 409) are never retried. No answer
is cached: run privacy answers are ``Cache-Control: no-store``, and httpx keeps no
response cache.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self, TypeVar

import httpx

from agent_sdk.client import AuthenticatedClient
from agent_sdk.client.api.messages import list_channel_messages, post_channel_message
from agent_sdk.client.api.privacy import (
    append_run_step,
    get_run_privacy,
    put_run_answer,
    record_provider_attempt,
    rotate_run_envelope,
)
from agent_sdk.client.api.runner import (
    relay_comms_call,
    runner_enroll,
    runner_session_bind_run,
    runner_session_reload,
    runner_session_started,
    runner_session_stop,
    runner_session_unbind_run,
)
from agent_sdk.client.api.runs import get_run_context
from agent_sdk.client.api.workspaces import provision_workspace
from agent_sdk.client.models import (
    AppendRunStepRequest,
    AttemptKind,
    BindRunRequest,
    EnvelopeRotated,
    Message,
    MessagePage,
    PostMessageRequest,
    ProviderAttemptGo,
    ProviderAttemptRequest,
    ProvisionWorkspaceRequest,
    PutRunAnswerRequest,
    RelayErrorResult,
    RelayListResult,
    RelayPostResult,
    RelayRequest,
    RotateEnvelopeRequest,
    RunAnswerResult,
    RunContext,
    RunnerEnrollment,
    RunnerSession,
    RunnerSessionReport,
    RunPrivacy,
    RunStepKind,
    RunStepMetadata,
    RunStepStored,
    Workspace,
)
from agent_sdk.client.types import UNSET, Response
from agent_sdk.errors import SdkError, ServiceUnavailable, TransportFailure, problem_error

__all__ = ["PrincipalClient", "RunPrivacyState", "RunnerClient"]

T = TypeVar("T")

# What the generated parsers raise on a body the contract does not allow (not JSON, a
# missing field, a value outside an enum, a wrong shape).
_UNPARSEABLE = (KeyError, TypeError, ValueError, AttributeError)


@dataclass(frozen=True, slots=True)
class RunPrivacyState:
    """``getRunPrivacy``: the answer and the envelope version to rotate against.

    Attributes:
        privacy: the run's ceilings (unset before the run was reconciled) and its
            attempted provider ids in attempt order.
        etag: the envelope version as a strong entity tag (``'"7"'``), for
            :meth:`PrincipalClient.rotate_envelope`.
    """

    privacy: RunPrivacy
    etag: str


def _uuid(value: str, name: str) -> uuid.UUID:
    """``value`` as a UUID; an SDK error (nothing is sent) when it is not one."""
    try:
        return uuid.UUID(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise SdkError(f"{name} is not a UUID") from exc


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
            except _UNPARSEABLE as exc:
                # The generated parser rejected the body (of a success or a Problem).
                raise TransportFailure("the service answered an unexpected body") from exc
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
        run = _uuid(run_id, "run_id")
        return self._call(
            lambda: get_run_context.sync_detailed(run, client=self._client),
            RunContext,
            idempotent=True,
        )

    def list_messages(
        self, channel_id: str, *, limit: int = 50, before_message_id: str | None = None
    ) -> MessagePage:
        """``listChannelMessages``: one page of the main thread, oldest first."""
        channel = _uuid(channel_id, "channel_id")
        before = _uuid(before_message_id, "before_message_id") if before_message_id else UNSET
        return self._call(
            lambda: list_channel_messages.sync_detailed(
                channel, client=self._client, limit=limit, before_message_id=before
            ),
            MessagePage,
            idempotent=True,
        )

    def post_message(
        self, channel_id: str, content_md: str, *, client_request_id: str | None = None
    ) -> Message:
        """``postChannelMessage`` (retried on 503 only with an idempotency key)."""
        channel = _uuid(channel_id, "channel_id")
        body = PostMessageRequest(
            content_md=content_md,
            client_request_id=client_request_id if client_request_id else UNSET,
        )
        return self._call(
            lambda: post_channel_message.sync_detailed(channel, client=self._client, body=body),
            Message,
            idempotent=client_request_id is not None,
        )

    def provision_workspace(self, agent_id: str, runner_id: str) -> Workspace:
        """``provisionWorkspace``: a new container of ``runner_id`` acting as the agent."""
        agent = _uuid(agent_id, "agent_id")
        body = ProvisionWorkspaceRequest(runner_id=_uuid(runner_id, "runner_id"))
        return self._call(
            lambda: provision_workspace.sync_detailed(agent, client=self._client, body=body),
            Workspace,
            idempotent=False,
        )

    # ------------------------------------------------------------ run privacy (agent)

    def record_attempt(
        self, run_id: str, *, attempt_id: str, provider_id: str, kind: str
    ) -> ProviderAttemptGo:
        """``recordProviderAttempt``: record an attempt before it is made; "go" or raise.

        The answer is "go" with the run's committed ceilings (any other outcome is not
        in the contract and raises). Retried after a 503, a timeout or a reset
        connection with the same ``attempt_id``: the service runs the guard again under
        the run-row lock and does not append the provider twice. This is the recorder
        :class:`~agent_sdk.privacy.GuardedDispatcher` calls before every provider call.

        Raises:
            Forbidden: an unknown provider (``reason`` ``unknown_provider``).
            NotFound: not this agent's run, an ended run or an unknown one.
            Conflict: ``attempt_id`` was recorded for another provider or kind.
            ServiceUnavailable: an unreadable policy, a lock timeout (after retries).
            TransportFailure: no answer, or a body the contract does not allow.
            SdkError: ``run_id`` is not a UUID or ``kind`` not an attempt kind (nothing
                was sent).
        """
        run = _uuid(run_id, "run_id")
        try:
            attempt_kind = AttemptKind(kind)
        except ValueError as exc:
            raise SdkError("kind is not an attempt kind (chat or tool)") from exc
        body = ProviderAttemptRequest(
            attempt_id=attempt_id, provider_id=provider_id, kind=attempt_kind
        )
        return self._call(
            lambda: record_provider_attempt.sync_detailed(run, client=self._client, body=body),
            ProviderAttemptGo,
            idempotent=True,
        )

    def append_step(
        self,
        run_id: str,
        *,
        kind: str,
        metadata: RunStepMetadata | Mapping[str, Any] | None = None,
        content: str | None = None,
    ) -> RunStepStored:
        """``appendRunStep``: store the audit copy of a step, as much as the ceiling keeps.

        ``kept`` of the answer names the parts that were stored. Never retried: each
        append stores a new step.

        Raises:
            NotFound: not this agent's run, an ended run or an unknown one.
            ValidationFailed: the step breaks the schema.
            ServiceUnavailable, TransportFailure: as :meth:`record_attempt` (no retry).
            SdkError: ``run_id``, ``kind`` or a ``metadata`` key is not one the
                contract knows (nothing was sent).
        """
        run = _uuid(run_id, "run_id")
        try:
            step_kind = RunStepKind(kind)
            facts = _step_metadata(metadata)
        except (KeyError, TypeError, ValueError) as exc:
            raise SdkError("the step's kind or metadata is not in the contract") from exc
        body = AppendRunStepRequest(
            kind=step_kind,
            metadata=UNSET if facts is None else facts,
            content=UNSET if content is None else content,
        )
        return self._call(
            lambda: append_run_step.sync_detailed(run, client=self._client, body=body),
            RunStepStored,
            idempotent=False,
        )

    def put_answer(self, run_id: str, answer_md: str) -> RunAnswerResult:
        """``putRunAnswer``: store the background answer if the run's ceiling keeps it.

        ``stored`` is ``False`` when the ceiling prohibits the answer (nothing was
        stored). Retried like a read: a ``PUT`` replaces the answer with the same text,
        and the ceiling is reread under the lock on every try.

        Raises:
            NotFound, ValidationFailed, ServiceUnavailable, TransportFailure: as
                :meth:`append_step`.
        """
        run = _uuid(run_id, "run_id")
        body = PutRunAnswerRequest(answer_md=answer_md)
        return self._call(
            lambda: put_run_answer.sync_detailed(run, client=self._client, body=body),
            RunAnswerResult,
            idempotent=True,
        )

    def run_privacy(self, run_id: str) -> RunPrivacyState:
        """``getRunPrivacy``: the run's ceilings, attempted provider ids and envelope ETag.

        Raises:
            NotFound: not this agent's run, an ended run or an unknown one.
            ServiceUnavailable, TransportFailure: as :meth:`record_attempt`.
        """
        run = _uuid(run_id, "run_id")
        response = self._send(
            lambda: get_run_privacy.sync_detailed(run, client=self._client), idempotent=True
        )
        etag = response.headers.get("etag")
        if not isinstance(response.parsed, RunPrivacy) or not etag:
            raise TransportFailure("the service answered an unexpected body")
        return RunPrivacyState(privacy=response.parsed, etag=etag)

    def rotate_envelope(self, run_id: str, *, etag: str, sealed_envelope: str) -> str:
        """``rotateRunEnvelope``: replace the sealed envelope if ``etag`` is current.

        Returns the new envelope version's ETag. Never retried: the rotation is a
        compare and swap, so a retry of one that was applied would answer 409.

        Raises:
            Conflict: a scrub or a state change moved the version on since ``etag``.
            NotFound, ValidationFailed, ServiceUnavailable, TransportFailure: as
                :meth:`append_step`.
        """
        run = _uuid(run_id, "run_id")
        body = RotateEnvelopeRequest(sealed_envelope=sealed_envelope)
        response = self._send(
            lambda: rotate_run_envelope.sync_detailed(
                run, client=self._client, body=body, if_match=etag
            ),
            idempotent=False,
        )
        new_etag = response.headers.get("etag")
        if not isinstance(response.parsed, EnvelopeRotated) or not new_etag:
            raise TransportFailure("the service answered an unexpected body")
        return new_etag


def _step_metadata(metadata: RunStepMetadata | Mapping[str, Any] | None) -> RunStepMetadata | None:
    """``metadata`` as the model; a mapping with a key the model lacks is refused.

    The generated ``from_dict`` drops unknown keys silently; the contract closes the
    object, so a misspelt fact must fail here rather than vanish.

    Raises:
        ValueError: a key the contract does not know, or a status outside its enum.
    """
    if metadata is None or isinstance(metadata, RunStepMetadata):
        return metadata
    facts = RunStepMetadata.from_dict(metadata)
    unknown = set(metadata) - set(facts.to_dict())
    if unknown:
        raise ValueError(f"unknown metadata keys: {sorted(unknown)}")
    return facts


class RunnerClient(_Base):
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
        body = BindRunRequest(run_id=_uuid(run_id, "run_id"))
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
