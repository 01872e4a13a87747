"""Typed inputs of every policy entry point, mirroring ``docs/policy-input.md``.

These are the shapes the app sends to OPA as ``input``. They hold ids, kinds, states,
levels, positions and timestamps only: never message content, handles, display names,
e-mail addresses or tokens. A field that does not apply is absent, never null. The
fact bundle (``input.facts``) is a domain type (:mod:`app.domain.facts`); the privacy
inputs are built here from the domain's ceilings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict

from app.domain.facts import FactBundle
from app.domain.privacy import Ceilings

__all__ = [
    "ActingForInput",
    "AgentResource",
    "AuthorRef",
    "BindingResource",
    "BoundRunFacts",
    "CandidateThread",
    "CeilingFacts",
    "ChannelResource",
    "DecisionInput",
    "InstanceResource",
    "IntentRef",
    "PrivacyAttemptInput",
    "PrivacyRunFacts",
    "PrivacyWriteInput",
    "ProviderFacts",
    "Resource",
    "RunContextInput",
    "RunRef",
    "RunResource",
    "RunnerResource",
    "SessionContextInput",
    "TaskFacts",
    "ThreadPosition",
    "TriggerHoldersInput",
    "ceiling_facts",
    "privacy_attempt_input",
    "privacy_write_input",
]


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


def ceiling_facts(ceilings: Ceilings) -> dict[str, CeilingFacts]:
    """The run's ceilings as the ceiling rules read them (``input.run.ceilings``)."""
    return {kind: {"level": c.level, "explicit": c.explicit} for kind, c in ceilings.items()}


def privacy_write_input(
    ceilings: Ceilings, *, task_key: str | None, task_policy: Mapping[str, str] | None
) -> PrivacyWriteInput:
    """The input of ``data.privacy.write``: the stored ceilings and the run's task.

    ``ceilings`` is left out for a run that was never reconciled, ``task`` for a run
    without a task, and the task's ``policy`` when the task has none.
    """
    run: PrivacyRunFacts = {}
    if ceilings:
        run["ceilings"] = ceiling_facts(ceilings)
    request: PrivacyWriteInput = {"run": run}
    if task_key is not None:
        task: TaskFacts = {"key": task_key}
        if task_policy is not None:
            task["policy"] = dict(task_policy)
        request["task"] = task
    return request


def privacy_attempt_input(
    ceilings: Ceilings,
    *,
    task_key: str | None,
    task_policy: Mapping[str, str] | None,
    provider_id: str,
    provider_policy: Mapping[str, str] | None,
) -> PrivacyAttemptInput:
    """The input of ``data.privacy.attempt``: as :func:`privacy_write_input`, plus the
    provider and its explicit levels (left out for an unknown provider)."""
    provider: ProviderFacts = {"id": provider_id}
    if provider_policy is not None:
        provider["policy"] = dict(provider_policy)
    request = privacy_write_input(ceilings, task_key=task_key, task_policy=task_policy)
    return {**request, "provider": provider}
