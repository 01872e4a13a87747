"""Builders of decision resources, shared by the use cases and ``explainDecision``.

A use case and the explain endpoint must send OPA the same resource for the same
thing, or an explanation would describe another decision than the real one; so both
build resources only here.
"""

from __future__ import annotations

from app.policy.inputs import ChannelResource, InstanceResource, RunResource

__all__ = ["channel", "instance", "run"]


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
