"""Typed inputs of every policy entry point, mirroring ``docs/policy-input.md``.

These are the shapes the app sends to OPA as ``input``. They hold ids, kinds, states,
levels, positions and timestamps only: never message content, handles, display names,
e-mail addresses or tokens. A field that does not apply is absent, never null.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

__all__ = [
    "ActingForInput",
    "AgentResource",
    "AuthorRef",
    "BindingResource",
    "BoundRunFacts",
    "CandidateThread",
    "CeilingFacts",
    "ChannelFacts",
    "ChannelResource",
    "DecisionInput",
    "FactBundle",
    "GrantFacts",
    "GrantRef",
    "InstanceResource",
    "IntentRef",
    "PrincipalFacts",
    "PrivacyAttemptInput",
    "PrivacyRunFacts",
    "PrivacyWriteInput",
    "ProviderFacts",
    "Resource",
    "RunContextInput",
    "RunRef",
    "RunResource",
    "RunnerFacts",
    "RunnerResource",
    "SessionContextInput",
    "SpaceFacts",
    "TaskFacts",
    "ThreadPosition",
    "TriggerHoldersInput",
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


class ChannelResource(TypedDict):
    """A channel as the resource of a decision."""

    kind: Literal["channel"]
    id: str


class RunResource(TypedDict):
    """A run as the resource of ``run.context.read``; ``id`` only when unknown."""

    kind: Literal["run"]
    id: str
    agent_id: NotRequired[str]
    channel_id: NotRequired[str]
    state: NotRequired[str]


class InstanceResource(TypedDict):
    """The whole instance (admin actions, queries, health)."""

    kind: Literal["instance"]


class RunnerResource(TypedDict):
    """A runner as the resource of ``runner.enroll``."""

    kind: Literal["runner"]
    id: str


class BoundRunFacts(TypedDict):
    """A run as acting-for sees it: its id, its agent and its state."""

    id: str
    agent_id: str
    state: str


class BindingResource(TypedDict):
    """A workspace binding as the resource of ``runner.session.*`` and ``runner.comms.relay``.

    Only ``kind`` is present when the runner named no binding it holds (unknown
    container or session): the policy answers 404 for it like for a foreign or stale one.
    ``run`` is the run a ``runner.session.run.bind`` asks to bind (absent when the run
    id names no run).
    """

    kind: Literal["binding"]
    runner_id: NotRequired[str]
    enrollment_epoch: NotRequired[int]
    state: NotRequired[str]
    agent_id: NotRequired[str]
    run: NotRequired[BoundRunFacts]


class AgentResource(TypedDict):
    """An agent as the resource of ``agent.workspace.provision``; ``owner_id`` if it has one."""

    kind: Literal["agent"]
    id: str
    owner_id: NotRequired[str]


Resource = (
    ChannelResource
    | RunResource
    | InstanceResource
    | RunnerResource
    | BindingResource
    | AgentResource
)


class ActingForInput(TypedDict):
    """``input.acting_for`` of a relayed call whose session has a bound run (issue 21).

    ``requester`` is the author of the run's triggering message, absent when the run
    has none. The fact bundle of a message decision covers the requester too.
    """

    run: BoundRunFacts
    requester: NotRequired[str]


class DecisionInput(TypedDict):
    """Input of ``data.authz.decision``; ``acting_for`` only for a relayed call of a
    session with a bound run (``runner.comms.relay`` and the relayed message action)."""

    action: str
    actor: str
    resource: Resource
    facts: FactBundle
    acting_for: NotRequired[ActingForInput]


class ThreadPosition(TypedDict):
    """Where a message lies: its thread and its ``thread_seq``."""

    thread_id: str
    seq: int


class RunRef(TypedDict):
    """The run of a context read, as the run-context rules see it.

    ``triggered_by`` is absent without a triggering person; ``parent`` is absent for a
    thread without a parent message (main threads, forum posts).
    """

    id: str
    agent_id: str
    channel_id: str
    thread_id: str
    triggered_by: NotRequired[str]
    parent: NotRequired[ThreadPosition]


class CandidateThread(TypedDict):
    """The candidate messages of one thread, by position (ascending ``seqs``)."""

    id: str
    channel_id: str
    seqs: list[int]


class AuthorRef(TypedDict):
    """A distinct (author, origin) pair among the candidates."""

    id: str
    origin: str


class RunContextInput(TypedDict):
    """Input of ``data.runcontext.evaluate`` (the second call of a context read)."""

    actor: str
    run: RunRef
    threads: list[CandidateThread]
    authors: list[AuthorRef]
    facts: FactBundle


class TriggerHoldersInput(TypedDict):
    """Input of ``data.runcontext.trigger_holders``."""

    channel_id: str
    candidates: list[str]
    facts: FactBundle


class IntentRef(TypedDict):
    """One proposed tool intent as the session-context rules see it.

    Only what the rules read: the tool name, the plane and, for ``navigate_to``, the
    target surface key. Params never reach OPA.
    """

    name: str
    plane: str
    target: NotRequired[str]


class SessionContextInput(TypedDict):
    """Input of ``data.sessioncontext.resolve`` (the one call of a resolution).

    ``action``, ``actor``, ``resource`` and ``facts`` are those of
    ``data.authz.decision``, which the batch asks first. ``surfaces`` are the distinct
    surface keys the client listed, in its order. The client's ``permissions``
    provider is never part of it: the caller's grants are ``facts``.
    """

    action: str
    actor: str
    resource: InstanceResource
    facts: FactBundle
    surfaces: list[str]
    intents: list[IntentRef]


# ---------------------------------------------------------------- privacy ceilings


class CeilingFacts(TypedDict):
    """A stored run ceiling: a level name and whether a policy set it explicitly."""

    level: str
    explicit: bool


class PrivacyRunFacts(TypedDict):
    """The run as the ceiling rules see it: its stored ceilings by kind.

    ``ceilings`` lists only the kinds that have a stored level; it is absent (or
    empty) for a run that was never reconciled.
    """

    ceilings: NotRequired[dict[str, CeilingFacts]]


class ProviderFacts(TypedDict):
    """The provider of an attempt; ``policy`` (explicit levels by kind) only if known."""

    id: str
    policy: NotRequired[dict[str, str]]


class TaskFacts(TypedDict):
    """The run's task; ``policy`` (explicit levels by kind) only if the task has one."""

    key: str
    policy: NotRequired[dict[str, str]]


class PrivacyAttemptInput(TypedDict):
    """Input of ``data.privacy.attempt`` (before a chat or tool attempt)."""

    run: PrivacyRunFacts
    provider: ProviderFacts
    task: NotRequired[TaskFacts]


class PrivacyWriteInput(TypedDict):
    """Input of ``data.privacy.write`` (before a run-step or answer write)."""

    run: PrivacyRunFacts
    task: NotRequired[TaskFacts]
