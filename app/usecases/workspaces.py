"""Provisioning a workspace: a person binds a container of a runner to an agent account.

Decided in Rego as ``agent.workspace.provision`` (package ``authz.workspaces``): the
agent's owner or an instance owner, for an active agent. The server mints the
container name; the binding is recorded for the runner's *current* enrolment, under
a share lock on the runner row so a concurrent re-enrolment cannot leave a binding of
an old epoch behind.
"""

from __future__ import annotations

from typing import Any

from app.domain.comms import mint_container_name
from app.errors import Conflict, NotFound
from app.policy import resources
from app.usecases.base import Writes
from repositories.principals import Actor

__all__ = ["ProvisionWorkspace"]


class ProvisionWorkspace(Writes):
    """``agent.workspace.provision``."""

    def __call__(self, actor: Actor, action: str, agent_id: str, runner_id: str) -> dict[str, Any]:
        """Record a new container of ``runner_id`` acting as ``agent_id``.

        Raises:
            NotFound: the agent is unknown or invisible to the actor, or the runner is
                unknown.
            Forbidden: the policy's reason (``not_agent_owner``, ``agent_inactive``,
                ``subject_kind_not_allowed``).
            Conflict: the runner has never enrolled (a binding needs an enrolment).
        """
        with self.writer() as uow:
            account = uow.principals.account(agent_id)
            if account is None:
                raise NotFound()
            facts = uow.facts.bundle([actor.id, agent_id], [])
            resource = resources.agent(agent_id, owner_id=account.owner_user_id)
            self.authorizer.require(actor, action, resource, facts)
            runner = uow.runners.lock_for_provisioning(runner_id)
            if runner is None:
                raise NotFound()
            if not runner.enrolled:
                raise Conflict("The runner has not enrolled yet.")
            binding = uow.runners.provision(
                runner_id=runner.id,
                enrollment_epoch=runner.enrollment_epoch,
                container_name=mint_container_name(),
                agent_id=agent_id,
            )
            uow.commit()
        return {
            "agent_id": binding.agent_id,
            "runner_id": binding.runner_id,
            "container_name": binding.container_name,
            "state": binding.state,
        }
