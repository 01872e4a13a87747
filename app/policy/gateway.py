"""The policy gateway: the only module that knows OPA's paths and answer shapes.

One method per entry point; each takes a typed input (:mod:`app.policy.inputs`) and
returns a typed, validated result (:mod:`app.policy.results`). Every call goes through
:meth:`PolicyGateway._ask`, so a corpus recorder or a metric sees all of them. An
optional :class:`CallObserver` (metrics and a span per call,
``app/observability/calls.py``) watches each call from the request to the validated
answer, so it sees malformed answers as well as transport failures.

Every call also names the policy revision that answered: the gateway asks OPA for its
provenance (the revision of the active bundle, read in the evaluation's own storage
transaction), validates it, hands it to ``on_revision`` (the request's access log line
and the ``agent_authz_policy_revision_info`` metric) and puts it on every
:class:`~app.policy.results.Decision` (audit rows, ``explainDecision``). With
``require_revision`` an answer without a bundle revision fails closed: a sidecar that
serves anything but a verified bundle decides nothing. The request's correlation id
travels to OPA with each call, so the sidecar's decision-log entries carry it beside
the revision (``docs/adr/0018-signed-policy-bundles.md``).

Errors: :class:`~app.opa_client.OpaUnavailable` and its subclasses (unreachable,
undefined, malformed). Nobody here turns them into HTTP answers; the edge does, in
one place (``app/main.py``), as 503.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from types import MappingProxyType
from typing import Any, Final, Protocol

from app.domain.decisions import Decision
from app.opa_client import Evaluation, OpaMalformed, OpaUndefined
from app.policy.inputs import (
    DecisionInput,
    PrivacyAttemptInput,
    PrivacyWriteInput,
    RunContextInput,
    SessionContextInput,
    TriggerHoldersInput,
)
from app.policy.privacy_results import (
    AttemptRefused,
    CeilingsGo,
    PolicyUnreadable,
    parse_privacy_attempt,
    parse_privacy_write,
)
from app.policy.resources import instance
from app.policy.results import (
    RunContextVerdict,
    SessionContextVerdict,
    parse_decision,
    parse_revision,
    parse_run_context,
    parse_session_context,
    parse_trigger_holders,
)

__all__ = [
    "DECISION",
    "ENTRYPOINTS",
    "INPUT_TYPES",
    "PRIVACY_ATTEMPT",
    "PRIVACY_WRITE",
    "RUN_CONTEXT",
    "SESSION_CONTEXT",
    "TRIGGER_HOLDERS",
    "CallObserver",
    "PolicyGateway",
    "RevisionObserver",
    "Transport",
]

DECISION = "authz/decision"
RUN_CONTEXT = "runcontext/evaluate"
TRIGGER_HOLDERS = "runcontext/trigger_holders"
SESSION_CONTEXT = "sessioncontext/resolve"
PRIVACY_ATTEMPT = "privacy/attempt"
PRIVACY_WRITE = "privacy/write"
# Every entry point and the typed contract of its input (the policy diff checks the
# inputs it generates against them).
INPUT_TYPES: Final[Mapping[str, type]] = MappingProxyType(
    {
        DECISION: DecisionInput,
        RUN_CONTEXT: RunContextInput,
        TRIGGER_HOLDERS: TriggerHoldersInput,
        SESSION_CONTEXT: SessionContextInput,
        PRIVACY_ATTEMPT: PrivacyAttemptInput,
        PRIVACY_WRITE: PrivacyWriteInput,
    }
)
ENTRYPOINTS = tuple(INPUT_TYPES)


class Transport(Protocol):
    """What the gateway needs from :class:`~app.opa_client.OpaClient`."""

    @property
    def calls(self) -> int:
        """Round trips made so far."""

    def evaluate(self, path: str, input: Any, *, correlation_id: str = "") -> Evaluation:
        """Evaluate ``data.<path>`` with ``input`` and OPA's provenance.

        Raises ``OpaUnavailable`` on failure (``OpaUndefined`` for no result).
        """


class CallObserver(Protocol):
    """Watches every call to an entry point (``app.observability.calls.ObservedCalls``)."""

    def observe(self, entrypoint: str) -> AbstractContextManager[None]:
        """A context around one call, from the request to the validated answer.

        It must re-raise whatever the call raises.
        """


RevisionObserver = Callable[[str | None], None]
"""Told the bundle revision of every answer (``None``: OPA named none)."""


def _unobserved(_entrypoint: str) -> AbstractContextManager[None]:
    return nullcontext()


def _no_correlation() -> str:
    return ""


class PolicyGateway:
    """Ask the policies; every answer is validated before it is returned.

    Args:
        transport: the OPA client (or a fake in unit tests).
        observer: watches every call (metrics, spans); none by default.
        require_revision: an answer that names no bundle revision raises
            ``OpaMalformed`` (configuration key ``policy.require_bundle_revision``).
        on_revision: told the revision of every answer (access log, metric).
        correlation_id: the current request's correlation id, sent to OPA with each
            call (empty: none).

    Example::

        gateway = PolicyGateway(OpaClient("http://127.0.0.1:8181", timeout=0.5))
        decision = gateway.decide(
            {"action": "message.list", "actor": actor_id,
             "resource": resources.channel(channel_id), "facts": facts}
        )
    """

    def __init__(
        self,
        transport: Transport,
        *,
        observer: CallObserver | None = None,
        require_revision: bool = False,
        on_revision: RevisionObserver | None = None,
        correlation_id: Callable[[], str] = _no_correlation,
    ) -> None:
        self._transport = transport
        self._observe = observer.observe if observer is not None else _unobserved
        self._require_revision = require_revision
        self._on_revision = on_revision
        self._correlation_id = correlation_id

    @property
    def calls(self) -> int:
        """OPA round trips made so far (cost tests and the benchmark read it)."""
        return self._transport.calls

    def _ask(self, entrypoint: str, input: Any) -> tuple[Any, str | None]:
        """The result and the bundle revision that produced it."""
        answer = self._transport.evaluate(entrypoint, input, correlation_id=self._correlation_id())
        revision = parse_revision(answer.provenance)
        if self._on_revision is not None:
            self._on_revision(revision)
        if revision is None and self._require_revision:
            raise OpaMalformed("the answer names no policy bundle revision")
        return answer.result, revision

    def decide(self, request: DecisionInput) -> Decision:
        """``data.authz.decision``: allow, reason and status for one action, and the
        revision of the policy bundle that decided.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (or, with
                ``require_revision``, names no bundle revision).
        """
        with self._observe(DECISION):
            result, revision = self._ask(DECISION, request)
            return parse_decision(result, request.get("acting_for"), revision=revision)

    def evaluate_run_context(self, request: RunContextInput) -> RunContextVerdict:
        """``data.runcontext.evaluate``: readable candidates, trigger holders, classes.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (including
                an answer that does not match the threads and authors sent).
        """
        with self._observe(RUN_CONTEXT):
            result, _revision = self._ask(RUN_CONTEXT, request)
            return parse_run_context(result, request["threads"], request["authors"])

    def trigger_holders(self, request: TriggerHoldersInput) -> tuple[str, ...]:
        """``data.runcontext.trigger_holders``: candidates holding trigger, ascending.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed.
        """
        with self._observe(TRIGGER_HOLDERS):
            result, _revision = self._ask(TRIGGER_HOLDERS, request)
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
            result, _revision = self._ask(SESSION_CONTEXT, request)
            return parse_session_context(result, request)

    def privacy_attempt(
        self, request: PrivacyAttemptInput
    ) -> CeilingsGo | PolicyUnreadable | AttemptRefused:
        """``data.privacy.attempt``: a run's ceilings before a chat or tool attempt.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed (including
                an "unchanged" answer that does not match the ceilings sent).
        """
        with self._observe(PRIVACY_ATTEMPT):
            result, revision = self._ask(PRIVACY_ATTEMPT, request)
            return parse_privacy_attempt(result, request, revision)

    def privacy_write(self, request: PrivacyWriteInput) -> CeilingsGo | PolicyUnreadable:
        """``data.privacy.write``: a run's ceilings before a run-step or answer write.

        Raises:
            OpaUnavailable: OPA cannot answer, answers undefined or malformed.
        """
        with self._observe(PRIVACY_WRITE):
            result, _revision = self._ask(PRIVACY_WRITE, request)
            return parse_privacy_write(result, request)

    def loaded_policies(self) -> Decision | None:
        """The ``health.ready`` decision (with the active revision); ``None`` when
        OPA serves no policies (an undefined answer: no bundle activated yet).

        Raises:
            OpaUnavailable: OPA is unreachable or answers malformed (with
                ``require_revision``: also when it names no bundle revision).
        """
        request: DecisionInput = {
            "action": "health.ready",
            "actor": "",
            "resource": instance(),
            "facts": {"now": "", "principals": {}, "channels": {}, "spaces": {}, "grants": []},
        }
        try:
            return self.decide(request)
        except OpaUndefined:
            return None

    def policies_loaded(self) -> bool:
        """Whether OPA serves the policies: ``health.ready`` is allowed.

        An undefined answer means no policy bundle is loaded (``False``).

        Raises:
            OpaUnavailable: as :meth:`loaded_policies`.
        """
        decision = self.loaded_policies()
        return decision is not None and decision.allow
