"""The per-turn resolution: request and answer of ``resolveSessionContext``.

A closed envelope around the open context: the client's
:class:`~agent_sdk.contracts.session_context.AgentSessionContext` and its proposed
intents in, the caller's real permissions, the reachable surfaces and one decision
per intent out (decisions.md S3-1, S3-10).

Example::

    request = SessionResolveRequest.model_validate(payload)
    answer = SessionResolveResponse.model_validate(response_json)
    accepted = [d.name for d in answer.decisions if d.decision == "accepted"]
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, StrictStr, field_validator, model_validator
from pydantic_core import PydanticCustomError

from agent_sdk.contracts._base import ClosedContract, SurfaceKey
from agent_sdk.contracts.session_context import AgentSessionContext
from agent_sdk.contracts.tool_intents import AgentToolIntent, ToolPlane

__all__ = [
    "INTENT_REASONS",
    "MAX_INTENTS",
    "IntentOutcome",
    "IntentReason",
    "ReachableSurface",
    "SessionResolveRequest",
    "SessionResolveResponse",
    "ToolDecision",
]

MAX_INTENTS = 32

IntentOutcome = Literal["accepted", "denied"]
"""The server's answer to one intent."""

IntentReason = Literal["not_reachable", "unknown_tool", "plane_mismatch", "missing_permission"]
"""Why an intent was denied (a closed list, equal to the policy's ``sessioncontext.reasons``).

* ``not_reachable``: ``navigate_to`` to a surface that is not reachable this turn;
* ``unknown_tool``: the tool registry does not know the name (fail closed);
* ``plane_mismatch``: the tool exists on the other plane;
* ``missing_permission``: the caller does not hold the tool's permission.
"""

INTENT_REASONS: frozenset[str] = frozenset(get_args(IntentReason))


class SessionResolveRequest(ClosedContract):
    """The request envelope ``{context, intents}``: closed, with an open context.

    Attributes:
        context: The per-turn context bag (open; every known provider is checked).
        intents: The brain's proposed tool calls, in order.
    """

    context: AgentSessionContext
    intents: tuple[AgentToolIntent, ...] = Field(max_length=MAX_INTENTS)

    @field_validator("context")
    @classmethod
    def _known_providers_are_valid(cls, context: AgentSessionContext) -> AgentSessionContext:
        # Raised here, the providers' errors are reported at context/providers/...,
        # together with the errors of the intents.
        context.check_known_providers()
        return context


class ReachableSurface(ClosedContract):
    """A surface the caller can reach this turn.

    Attributes:
        surface_key: The surface's key, as the client listed it.
        required_permission: The permission the server's registry requires for it
            (absent for a public surface).
    """

    surface_key: SurfaceKey
    required_permission: StrictStr | None = None


class ToolDecision(ClosedContract):
    """The decision on one intent, in the order of the request's intents.

    Attributes:
        name: The intent's tool name, as sent.
        plane: The intent's plane, as sent.
        decision: ``accepted`` or ``denied``.
        reason: Why it was denied; present exactly when denied.
    """

    name: StrictStr
    plane: ToolPlane
    decision: IntentOutcome
    reason: IntentReason | None = None

    @model_validator(mode="after")
    def _reason_exactly_when_denied(self) -> ToolDecision:
        if (self.decision == "denied") != (self.reason is not None):
            raise PydanticCustomError(
                "decision_reason", "a decision carries a reason exactly when it is denied"
            )
        return self


class SessionResolveResponse(ClosedContract):
    """The server's authoritative view of the turn.

    Attributes:
        permissions: The caller's real permissions, from the session, ascending.
        reachable_surfaces: The client's listed surfaces the caller can reach, in the
            client's order.
        decisions: One decision per intent, in the order of the intents.
    """

    permissions: tuple[StrictStr, ...]
    reachable_surfaces: tuple[ReachableSurface, ...]
    decisions: tuple[ToolDecision, ...]
