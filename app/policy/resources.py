"""Builders of decision resources, shared by the use cases and ``explainDecision``.

A use case and the explain endpoint must send OPA the same resource for the same
thing, or an explanation would describe another decision than the real one; so both
build resources only here.
"""

from __future__ import annotations

from app.policy.inputs import (
    AgentResource,
    BindingResource,
    BoundRunFacts,
    ChannelResource,
    InstanceResource,
    RunnerResource,
    RunResource,
)

__all__ = ["agent", "binding", "channel", "instance", "no_binding", "run", "runner"]


def channel(channel_id: str) -> ChannelResource:
    """A channel: the resource of ``message.*`` and ``authz.trigger_holders.query``."""
    return {"kind": "channel", "id": channel_id}


def instance() -> InstanceResource:
    """The instance: the resource of ``admin.*``, ``authz.explain`` and health."""
    return {"kind": "instance"}


def run(run_id: str, *, agent_id: str, channel_id: str, state: str) -> RunResource:
    """A run: the resource of ``run.context.read`` (its agent, channel and state)."""
    return {
        "kind": "run",
        "id": run_id,
        "agent_id": agent_id,
        "channel_id": channel_id,
        "state": state,
    }


def runner(runner_id: str) -> RunnerResource:
    """A runner: the resource of ``runner.enroll``."""
    return {"kind": "runner", "id": runner_id}


def binding(
    *,
    runner_id: str,
    enrollment_epoch: int,
    state: str,
    agent_id: str,
    run: BoundRunFacts | None = None,
) -> BindingResource:
    """A workspace binding: the resource of ``runner.session.*`` and ``runner.comms.relay``.

    ``run`` is the run ``runner.session.run.bind`` asks to bind, when it exists.
    """
    resource: BindingResource = {
        "kind": "binding",
        "runner_id": runner_id,
        "enrollment_epoch": enrollment_epoch,
        "state": state,
        "agent_id": agent_id,
    }
    if run is not None:
        resource["run"] = run
    return resource


def no_binding() -> BindingResource:
    """The resource of a runner call naming no binding the runner holds (decided 404)."""
    return {"kind": "binding"}


def agent(agent_id: str, *, owner_id: str | None) -> AgentResource:
    """An agent: the resource of ``agent.workspace.provision``."""
    resource: AgentResource = {"kind": "agent", "id": agent_id}
    if owner_id is not None:
        resource["owner_id"] = owner_id
    return resource
