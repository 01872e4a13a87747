"""The policy gateway: the only module that knows OPA's paths and answer shapes.

One method per entry point; each takes a typed input (:mod:`app.policy.inputs`) and
returns a typed, validated result (:mod:`app.policy.results`). Every call goes through
:meth:`PolicyGateway._ask`, so a corpus recorder or a metric sees all of them. An
optional :class:`CallObserver` (metrics and a span per call,
``app/observability/calls.py``) watches each call from the request to the validated
answer, so it sees malformed answers as well as transport failures.

Errors: :class:`~app.opa_client.OpaUnavailable` and its subclasses (unreachable,
undefined, malformed). Nobody here turns them into HTTP answers; the edge does, in
one place (``app/main.py``), as 503.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from app.opa_client import OpaUndefined
from app.policy.inputs import (
    DecisionInput,
    PrivacyAttemptInput,
    PrivacyWriteInput,
    RunContextInput,
    SessionContextInput,
    TriggerHoldersInput,
)
from app.policy.resources import instance
from app.policy.results import (
    AttemptRefused,
    CeilingsGo,
    Decision,
    PolicyUnreadable,
    RunContextVerdict,
    SessionContextVerdict,
    parse_decision,
    parse_privacy_attempt,
    parse_privacy_write,
    parse_run_context,
    parse_session_context,
    parse_trigger_holders,
)

__all__ = [
    "DECISION",
    "ENTRYPOINTS",
    "PRIVACY_ATTEMPT",
    "PRIVACY_WRITE",
    "RUN_CONTEXT",
    "SESSION_CONTEXT",
    "TRIGGER_HOLDERS",
    "CallObserver",
    "PolicyGateway",
    "Transport",
]

DECISION = "authz/decision"
RUN_CONTEXT = "runcontext/evaluate"
TRIGGER_HOLDERS = "runcontext/trigger_holders"
SESSION_CONTEXT = "sessioncontext/resolve"
PRIVACY_ATTEMPT = "privacy/attempt"
PRIVACY_WRITE = "privacy/write"
ENTRYPOINTS = (
    DECISION,
    RUN_CONTEXT,
    TRIGGER_HOLDERS,
    SESSION_CONTEXT,
    PRIVACY_ATTEMPT,
    PRIVACY_WRITE,
)


class Transport(Protocol):
    """What the gateway needs from :class:`~app.opa_client.OpaClient`."""

    @property
    def calls(self) -> int:
        """Round trips made so far."""

    def query(self, path: str, input: Any) -> Any:
        """Evaluate ``data.<path>`` with ``input``; raise ``OpaUnavailable`` on failure."""


class CallObserver(Protocol):
    """Watches every call to an entry point (``app.observability.calls.ObservedCalls``)."""

    def observe(self, entrypoint: str) -> AbstractContextManager[None]:
        """A context around one call, from the request to the validated answer.

        It must re-raise whatever the call raises.
        """


def _unobserved(_entrypoint: str) -> AbstractContextManager[None]:
    return nullcontext()


class PolicyGateway:
    """Ask the policies; every answer is validated before it is returned.

    Args:
        transport: the OPA client (or a fake in unit tests).
        observer: watches every call (metrics, spans); none by default.

    Example::

        gateway = PolicyGateway(OpaClient("http://127.0.0.1:8181", timeout=0.5))
        decision = gateway.decide(
            {"action": "message.list", "actor": actor_id,
             "resource": resources.channel(channel_id), "facts": facts}
        )
    """

    def __init__(self, transport: Transport, *, observer: CallObserver | None = None) -> None:
        self._transport = transport
        self._observe = observer.observe if observer is not None else _unobserved

    @property
    def calls(self) -> int:
        """OPA round trips made so far (cost tests and the benchmark read it)."""
        return self._transport.calls

    def _ask(self, entrypoint: str, input: Any) -> Any:
        return self._transport.query(entrypoint, input)

    def decide(self, request: DecisionInput) -> Decision:
        """``data.authz.decision``: allow, reason and status for one action.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed.
        """
        with self._observe(DECISION):
            return parse_decision(self._ask(DECISION, request), request.get("acting_for"))

    def evaluate_run_context(self, request: RunContextInput) -> RunContextVerdict:
        """``data.runcontext.evaluate``: readable candidates, trigger holders, classes.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (including
                an answer that does not match the threads and authors sent).
        """
        with self._observe(RUN_CONTEXT):
            result = self._ask(RUN_CONTEXT, request)
            return parse_run_context(result, request["threads"], request["authors"])

    def trigger_holders(self, request: TriggerHoldersInput) -> tuple[str, ...]:
        """``data.runcontext.trigger_holders``: candidates holding trigger, ascending.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed.
        """
        with self._observe(TRIGGER_HOLDERS):
            result = self._ask(TRIGGER_HOLDERS, request)
            return parse_trigger_holders(result, request["candidates"])

    def resolve_session_context(self, request: SessionContextInput) -> SessionContextVerdict:
        """``data.sessioncontext.resolve``: may the caller resolve, and the resolution.

        One round trip answers the caller's decision (``data.authz.decision`` for
        ``request["action"]``), the caller's permissions, the reachable surfaces and a
        decision per intent.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (including
                an answer that does not match the surfaces and intents sent).
        """
        with self._observe(SESSION_CONTEXT):
            return parse_session_context(self._ask(SESSION_CONTEXT, request), request)

    def privacy_attempt(
        self, request: PrivacyAttemptInput
    ) -> CeilingsGo | PolicyUnreadable | AttemptRefused:
        """``data.privacy.attempt``: a run's ceilings before a chat or tool attempt.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (including
                an "unchanged" answer that does not match the ceilings sent).
        """
        with self._observe(PRIVACY_ATTEMPT):
            return parse_privacy_attempt(self._ask(PRIVACY_ATTEMPT, request), request)

    def privacy_write(self, request: PrivacyWriteInput) -> CeilingsGo | PolicyUnreadable:
        """``data.privacy.write``: a run's ceilings before a run-step or answer write.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed.
        """
        with self._observe(PRIVACY_WRITE):
            return parse_privacy_write(self._ask(PRIVACY_WRITE, request), request)

    def policies_loaded(self) -> bool:
        """Whether OPA serves the policies: ``health.ready`` is allowed.

        An undefined answer means no policy bundle is loaded (``False``).

        Raises:
            OpaUnavailable: OPA is unreachable or answers malformed.
        """
        request: DecisionInput = {
            "action": "health.ready",
            "actor": "",
            "resource": instance(),
            "facts": {"now": "", "principals": {}, "channels": {}, "spaces": {}, "grants": []},
        }
        try:
            return self.decide(request).allow
        except OpaUndefined:
            return False
