"""The authorization core: gather facts, ask OPA, audit denials, raise the answer.

One function decides every request: :func:`authorize`. It sends the action, the
actor, the resource and the fact bundle to ``data.authz.decision`` and turns the
policy's decision object into nothing (allow), :class:`~app.errors.NotFound` (the
resource is invisible to the actor) or :class:`~app.errors.Forbidden` with the
policy's reason. Python holds no rule of its own: it only checks that the answer has
the decision shape, and treats anything else as a failure (fail closed).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from app.errors import ApiError, Forbidden, NotFound, ServiceUnavailable
from app.opa_client import OpaClient, OpaUnavailable
from app.services import Services
from repositories.audit import AuditRepository
from repositories.principals import Actor

__all__ = ["DECISION_PATH", "Decision", "ask", "authorize", "decision_error", "record_denial"]

DECISION_PATH = "authz/decision"
log = logging.getLogger("app.authz")


@dataclass(frozen=True, slots=True)
class Decision:
    """OPA's answer: allow, the machine-readable reason and the HTTP status to use."""

    allow: bool
    reason: str
    status: int

    @classmethod
    def parse(cls, result: Any) -> Decision:
        """Read a decision object; anything malformed fails closed.

        Raises:
            OpaUnavailable: ``result`` is not ``{"allow": bool, "reason": str, "status": int}``.
        """
        if not isinstance(result, dict):
            raise OpaUnavailable("decision is not an object")
        allow, reason, status = result.get("allow"), result.get("reason"), result.get("status")
        if not isinstance(allow, bool) or not isinstance(reason, str):
            raise OpaUnavailable("decision has the wrong shape")
        if not isinstance(status, int):
            raise OpaUnavailable("decision has the wrong shape")
        if not allow and status not in (403, 404):
            raise OpaUnavailable("deny with an unexpected status")
        return cls(allow=allow, reason=reason, status=status)


def ask(opa: OpaClient, policy_input: dict[str, Any]) -> Decision:
    """Evaluate ``data.authz.decision`` for ``policy_input``.

    Raises:
        ServiceUnavailable: OPA cannot answer or answers undefined or malformed.
    """
    try:
        return Decision.parse(opa.query(DECISION_PATH, policy_input))
    except OpaUnavailable as exc:
        log.error(
            "authz decision unavailable",
            extra={"action": policy_input.get("action"), "error": str(exc)},
        )
        raise ServiceUnavailable("The policy engine cannot answer.") from exc


def decision_error(decision: Decision) -> ApiError:
    """The error a denied decision ends the request with."""
    if decision.status == 404:
        return NotFound()
    return Forbidden(decision.reason)


def record_denial(
    services: Services, actor: Actor, action: str, resource_kind: str, decision: Decision
) -> None:
    """Write the denial to the audit log, outside the request's transaction.

    Outside, because the request's transaction is rolled back when the denial ends the
    request and the audit row must survive that. The write is one atomic upsert, so it
    runs in autocommit on the read pool: taking a second connection from the write pool
    while the request holds one could exhaust that pool under a burst of denials.
    """
    with services.read_engine.connect() as conn:
        AuditRepository(conn).record_denial(
            actor_id=actor.id,
            action=action,
            resource_kind=resource_kind,
            reason=decision.reason,
            status=decision.status,
            window_seconds=services.settings.integer("audit.deny_aggregate_window"),
        )


def authorize(
    services: Services,
    actor: Actor,
    action: str,
    resource: dict[str, Any],
    facts: dict[str, Any],
) -> Decision:
    """Decide ``action`` on ``resource`` for ``actor``; raise unless allowed.

    Every denial is audited (aggregated per ``audit.deny_aggregate_window``); an allow
    writes nothing.

    Raises:
        NotFound: the policy says the resource is invisible to the actor.
        Forbidden: visible but not allowed; carries the policy's reason.
        ServiceUnavailable: OPA cannot answer (fail closed).
    """
    decision = ask(
        services.opa, {"action": action, "actor": actor.id, "resource": resource, "facts": facts}
    )
    if not decision.allow:
        record_denial(services, actor, action, str(resource.get("kind", "")), decision)
        raise decision_error(decision)
    return decision
