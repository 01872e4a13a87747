"""The REST client a principal (an agent or a person) calls with its own token.

:class:`PrincipalClient`: run context, messages, workspace provisioning, and the run
privacy operations an agent's adapter calls around every provider attempt (the recorder
of :class:`~agent_sdk.privacy.GuardedDispatcher`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_sdk.client.api.messages import list_channel_messages, post_channel_message
from agent_sdk.client.api.privacy import (
    append_run_step,
    get_run_privacy,
    put_run_answer,
    record_provider_attempt,
    rotate_run_envelope,
)
from agent_sdk.client.api.runs import get_run_context
from agent_sdk.client.api.workspaces import provision_workspace
from agent_sdk.client.models import (
    AppendRunStepRequest,
    AttemptKind,
    EnvelopeRotated,
    Message,
    MessagePage,
    PostMessageRequest,
    ProviderAttemptGo,
    ProviderAttemptRequest,
    ProvisionWorkspaceRequest,
    PutRunAnswerRequest,
    RotateEnvelopeRequest,
    RunAnswerResult,
    RunContext,
    RunPrivacy,
    RunStepKind,
    RunStepMetadata,
    RunStepStored,
    Workspace,
)
from agent_sdk.client.types import UNSET
from agent_sdk.errors import SdkError, TransportFailure
from agent_sdk.rest._base import ClientBase, as_uuid

__all__ = ["PrincipalClient", "RunPrivacyState"]


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


class PrincipalClient(ClientBase):
    """The endpoints a principal calls with its own token (an agent or a person).

    Example::

        with PrincipalClient("http://127.0.0.1:8080", "tok-lotse") as agent:
            context = agent.run_context(run_id)
    """

    def run_context(self, run_id: str) -> RunContext:
        """``getRunContext``: the context of the agent's own active run."""
        run = as_uuid(run_id, "run_id")
        return self._call(
            lambda: get_run_context.sync_detailed(run, client=self._client),
            RunContext,
            idempotent=True,
        )

    def list_messages(
        self, channel_id: str, *, limit: int = 50, before_message_id: str | None = None
    ) -> MessagePage:
        """``listChannelMessages``: one page of the main thread, oldest first."""
        channel = as_uuid(channel_id, "channel_id")
        before = as_uuid(before_message_id, "before_message_id") if before_message_id else UNSET
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
        channel = as_uuid(channel_id, "channel_id")
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
        agent = as_uuid(agent_id, "agent_id")
        body = ProvisionWorkspaceRequest(runner_id=as_uuid(runner_id, "runner_id"))
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
        run = as_uuid(run_id, "run_id")
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
        run = as_uuid(run_id, "run_id")
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
        run = as_uuid(run_id, "run_id")
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
        run = as_uuid(run_id, "run_id")
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
        run = as_uuid(run_id, "run_id")
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
