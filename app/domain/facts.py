"""The authorization facts the service gathers about principals, channels and grants.

Pure types (no I/O): the repositories build a :class:`FactBundle` in one SQL statement,
the use cases pass it on, and the policy gateway sends it to OPA as ``input.facts``
(``docs/policy-input.md``). They hold ids, kinds, states and levels only: never message
content, handles, display names, e-mail addresses or tokens.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

__all__ = [
    "ChannelFacts",
    "FactBundle",
    "GrantFacts",
    "GrantRef",
    "PrincipalFacts",
    "RunnerFacts",
    "SpaceFacts",
]


class PrincipalFacts(TypedDict):
    """One principal of the fact bundle.

    ``acting_for`` is present (``"required"``) only for an agent that may post and
    list only for the requester of a bound run.
    """

    kind: str
    status: str
    is_owner: bool
    groups: list[str]
    permissions: list[str]
    acting_for: NotRequired[str]


class ChannelFacts(TypedDict):
    """One channel of the fact bundle; ``members`` only lists principals of the bundle."""

    kind: str
    archived: bool
    space_id: str
    members: list[str]


class SpaceFacts(TypedDict):
    """One space of the fact bundle."""

    archived: bool


class GrantRef(TypedDict):
    """The subject or the target of a grant."""

    kind: str
    id: str


class GrantFacts(TypedDict):
    """A grant that can matter for the principals and channels of the bundle."""

    subject: GrantRef
    target: GrantRef
    level: str
    expires_at: NotRequired[str]


class RunnerFacts(TypedDict):
    """A runner as the runner decisions see it: enrolled or not, and in which epoch."""

    enrolled: bool
    enrollment_epoch: int


class FactBundle(TypedDict):
    """The common fact bundle ``input.facts`` (built in one SQL statement).

    ``runners`` is present only in the decisions of runner actions, keyed by runner id.
    """

    now: str
    principals: dict[str, PrincipalFacts]
    channels: dict[str, ChannelFacts]
    spaces: dict[str, SpaceFacts]
    grants: list[GrantFacts]
    runners: NotRequired[dict[str, RunnerFacts]]
