"""The policy boundary: typed inputs, the gateway to OPA, validated results.

Use cases ask the policies only through :class:`PolicyGateway`; nothing else knows an
OPA path or an answer shape. See ``docs/adr/0008-policy-gateway.md``.
"""

from app.policy import resources
from app.policy.gateway import ENTRYPOINTS, PolicyGateway, Transport
from app.policy.results import (
    INTENT_REASONS,
    REASONS,
    AuthorClass,
    IntentOutcome,
    IntentVerdict,
    ReachableSurface,
    Role,
    RunContextVerdict,
    SessionContextVerdict,
    Trust,
)

__all__ = [
    "ENTRYPOINTS",
    "INTENT_REASONS",
    "REASONS",
    "AuthorClass",
    "IntentOutcome",
    "IntentVerdict",
    "PolicyGateway",
    "ReachableSurface",
    "Role",
    "RunContextVerdict",
    "SessionContextVerdict",
    "Transport",
    "Trust",
    "resources",
]
