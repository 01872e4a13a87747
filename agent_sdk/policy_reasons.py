"""The closed list of policy reason codes on the wire, shared by the server and the SDK.

A 403 (``Forbidden.reason``) or an in-band ``forbidden`` of a relayed call carries one
of these; the server's answer parser (:mod:`app.policy.results`) refuses any other.
``x-policy-reasons`` of the contract's Problem and ``policies/authz/results/results.rego``
name the same list; tests pin them equal.

Deliberately a plain module outside :mod:`agent_sdk.contracts`: importing that package
loads pydantic, and the SDK's plain modules (:mod:`agent_sdk.errors`, ``rest``,
``comms``) must not. This module imports nothing but :mod:`typing`.
"""

from __future__ import annotations

from typing import Final

__all__ = ["POLICY_REASONS"]

# ``acting_for_exceeded``: the agent may, but the person it works for (the requester of
# the bound run) may not; ``run_required``: the agent may only act for someone and no
# live run is bound to its session.
POLICY_REASONS: Final = frozenset(
    {
        "allowed",
        "not_found",
        "no_grant",
        "archived",
        "not_owner",
        "not_self",
        "subject_kind_not_allowed",
        "unknown_action",
        "inactive",
        "not_enrolled",
        "not_agent_owner",
        "agent_inactive",
        "unknown_provider",
        "acting_for_exceeded",
        "run_required",
    }
)
