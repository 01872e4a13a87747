"""The authorization core: decide through the policy gateway, audit every denial.

:class:`Authorizer` is the one owner of denial auditing: every use case decides an
action through it, so a denial is audited exactly once whichever caller asked (a
person over the messages API, an agent through the runner relay, ...). Python holds no
rule of its own; the gateway validates OPA's answer and fails closed on anything else.

An optional :class:`DecisionObserver` (the metrics, ``app/observability/metrics.py``)
is told of every decision, every audit write and every filter mismatch.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import NoReturn, Protocol

from app.domain.decisions import Decision
from app.domain.facts import FactBundle
from app.errors import ApiError, Forbidden, NotFound
from app.policy import PolicyGateway
from app.policy.inputs import ActingForInput, DecisionInput, Resource

__all__ = ["Authorizer", "DecisionObserver", "DenialAudit", "Subject", "decision_error"]


class Subject(Protocol):
    """Whoever asks: a principal (:class:`Actor`) or a runner; only the id is decided on."""

    @property
    def id(self) -> str:
        """The id sent to the policy as ``input.actor`` and written to audit rows."""


class DenialAudit(Protocol):
    """Where denials are recorded (aggregated per ``audit.deny_aggregate_window``)."""

    def record(self, *, actor_id: str, action: str, resource_kind: str, decision: Decision) -> None:
        """Count one denial; ids and codes only, never content or names."""


class DecisionObserver(Protocol):
    """Told about authorization outcomes (``app.observability.metrics.Metrics``)."""

    def decided(self, action: str, decision: Decision) -> None:
        """A decision was taken for a request."""

    def denial_audited(self, action: str, decision: Decision) -> None:
        """A denial was written to the audit log."""

    def filter_mismatch(self, action: str, dropped: int) -> None:
        """A filter-mode check dropped ``dropped`` items that SQL had selected."""


def decision_error(decision: Decision) -> ApiError:
    """The error a denied decision ends a request with: 404 invisible, 403 otherwise."""
    if decision.status == 404:
        return NotFound()
    return Forbidden(decision.reason)


@dataclass(frozen=True, slots=True, eq=False)
class Authorizer:
    """Decide actions and audit denials.

    Attributes:
        policy: the policy gateway.
        audit: the denial sink; it writes outside the request's transaction, so the
            row survives the rollback that the denial causes.
        observer: told about decisions, audit writes and filter mismatches; none by
            default.
    """

    policy: PolicyGateway
    audit: DenialAudit
    _: KW_ONLY
    observer: DecisionObserver | None = None

    def require(
        self,
        actor: Subject,
        action: str,
        resource: Resource,
        facts: FactBundle,
        *,
        acting_for: ActingForInput | None = None,
    ) -> Decision:
        """Decide ``action`` on ``resource`` for ``actor``; raise unless allowed.

        Every denial is audited (aggregated) before it is raised; an allow writes
        nothing. ``acting_for`` (the bound run of a relayed call's session) goes into
        the policy input, and a denial's audit row records the mode the decision names.

        Raises:
            NotFound: the policy says the resource is invisible to the actor.
            Forbidden: visible but not allowed; carries the policy's reason.
            OpaUnavailable: OPA cannot answer, or answers undefined or malformed
                (fail closed).
        """
        request: DecisionInput = {
            "action": action,
            "actor": actor.id,
            "resource": resource,
            "facts": facts,
        }
        if acting_for is not None:
            request["acting_for"] = acting_for
        decision = self.policy.decide(request)
        if self.observer is not None:
            self.observer.decided(action, decision)
        if not decision.allow:
            self._record(actor, action, resource, decision)
            raise decision_error(decision)
        return decision

    def refuse(
        self, actor: Subject, action: str, resource: Resource, decision: Decision
    ) -> NoReturn:
        """End a request with a denial that another policy entry point decided.

        For refusals that are not ``data.authz.decision`` answers (a provider attempt
        refused with ``unknown_provider``): audited like every denial, then raised.

        Raises:
            NotFound, Forbidden: always (``decision`` must be a deny).
        """
        if self.observer is not None:
            self.observer.decided(action, decision)
        self._record(actor, action, resource, decision)
        raise decision_error(decision)

    def filter_mismatch(self, action: str, dropped: int) -> None:
        """Report ``dropped`` items that a filter-mode check of ``action`` removed.

        SQL selected them and the policy did not let the actor read them: SQL and policy
        disagree (decisions.md S0-3). The caller drops them and logs the counts;
        this counts them for the operators' authorization-error signal.
        """
        if self.observer is not None and dropped > 0:
            self.observer.filter_mismatch(action, dropped)

    def _record(self, actor: Subject, action: str, resource: Resource, decision: Decision) -> None:
        self.audit.record(
            actor_id=actor.id, action=action, resource_kind=resource["kind"], decision=decision
        )
        if self.observer is not None:
            self.observer.denial_audited(action, decision)
