"""``resolveSessionContext``: a person's per-turn session context (decisions.md S3).

:class:`ResolveSessionContext` parses the client's bag and intents with the shared
contracts (:mod:`agent_sdk.contracts`), sends only surface keys, tool names, planes and
navigation targets with the caller's real grants to ``data.sessioncontext.resolve``
(one round trip), and answers the server's view of the turn. Read-only and unaudited
(decisions.md S3-6); design in ADR 0012.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_sdk.contracts import SessionResolveRequest, SessionResolveResponse
from app.domain.echo import echo, join_path
from app.domain.facts import FactBundle
from app.errors import FieldError, ValidationFailed
from app.policy import PolicyGateway, SessionContextVerdict, resources
from app.policy.inputs import IntentRef, SessionContextInput
from app.usecases.authorization import DecisionObserver, decision_error
from repositories.principals import Actor
from repositories.unit_of_work import UnitFactory

__all__ = ["ResolveSessionContext", "parse_request", "policy_input", "resolution"]


def _violations(error: ValidationError) -> list[FieldError]:
    # Paths and error types only: a message or input may quote what the client sent,
    # and a path may hold a key the client chose (escaped and cut by join_path).
    return [
        {
            "path": join_path("body", item["loc"]),
            "message": f"violates '{echo(item['type'])}'",
        }
        for item in error.errors(include_url=False, include_context=False, include_input=False)
    ]


def parse_request(body: Mapping[str, Any]) -> SessionResolveRequest:
    """The request as the shared contract: closed envelope, open context.

    Raises:
        ValidationFailed: the body breaks the contract (an unknown envelope field, a
            malformed known provider, a URL-shaped surface key anywhere, malformed
            params of a typed tool); the errors name paths and types, never values.
    """
    try:
        return SessionResolveRequest.model_validate(body)
    except ValidationError as error:
        raise ValidationFailed(
            "The request body does not match the session context contract.",
            _violations(error),
        ) from None


def policy_input(
    action: str, actor_id: str, facts: FactBundle, request: SessionResolveRequest
) -> SessionContextInput:
    """What the policy sees of a request: surface keys, tool names, planes, targets.

    The surfaces are the distinct keys the client listed, in its order. Nothing of the
    client's ``permissions`` provider, of any other provider or of the params is sent.
    """
    surface = request.context.surface()
    listed = () if surface is None else surface.available_surfaces
    surfaces = list(dict.fromkeys(entry.surface_key for entry in listed))
    intents: list[IntentRef] = []
    for intent in request.intents:
        ref: IntentRef = {"name": intent.name, "plane": intent.plane}
        target = intent.navigation_target()
        if target is not None:
            ref["target"] = target
        intents.append(ref)
    return {
        "action": action,
        "actor": actor_id,
        "resource": resources.instance(),
        "facts": facts,
        "surfaces": surfaces,
        "intents": intents,
    }


def resolution(request: SessionResolveRequest, verdict: SessionContextVerdict) -> dict[str, Any]:
    """The answer body: permissions, reachable surfaces, one decision per intent.

    The body is checked against the shared response contract before it leaves.
    """
    reachable: list[dict[str, Any]] = []
    for surface in verdict.reachable:
        entry: dict[str, Any] = {"surface_key": surface.surface_key}
        if surface.required_permission is not None:
            entry["required_permission"] = surface.required_permission
        reachable.append(entry)
    decisions: list[dict[str, Any]] = []
    for intent, decided in zip(request.intents, verdict.intents, strict=True):
        item: dict[str, Any] = {
            "name": intent.name,
            "plane": intent.plane,
            "decision": decided.outcome.value,
        }
        if decided.reason is not None:
            item["reason"] = decided.reason
        decisions.append(item)
    body = {
        "permissions": list(verdict.permissions),
        "reachable_surfaces": reachable,
        "decisions": decisions,
    }
    SessionResolveResponse.model_validate(body)
    return body


@dataclass(frozen=True, kw_only=True, eq=False)
class ResolveSessionContext:
    """Answer ``resolveSessionContext`` (``session_context.resolve``, people only).

    Attributes:
        reader: opens a read-only unit (one statement: the caller's fact bundle).
        policy: decides the caller and resolves the turn in one round trip.
        decisions: told about the caller's decision (metrics); none by default.
    """

    reader: UnitFactory
    policy: PolicyGateway
    decisions: DecisionObserver | None = None

    def __call__(self, actor: Actor, action: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's real permissions, reachable surfaces and intent decisions.

        Raises:
            ValidationFailed: the body breaks the shared contract.
            Forbidden: the caller is not an active person (reason from the policy:
                ``subject_kind_not_allowed`` or ``inactive``).
            OpaUnavailable: OPA cannot answer, or answers undefined or malformed.
        """
        request = parse_request(body)
        with self.reader() as uow:
            facts = uow.facts.bundle([actor.id], [])
        verdict = self.policy.resolve_session_context(
            policy_input(action, actor.id, facts, request)
        )
        if self.decisions is not None:
            self.decisions.decided(action, verdict.decision)
        if not verdict.decision.allow:
            # Not through Authorizer: it audits every denial, and this read-only
            # resolution is unaudited (decisions.md S3), on an allow and on a denial alike.
            raise decision_error(verdict.decision)
        return resolution(request, verdict)
