"""Authorization queries for operators and reviewers.

* :class:`QueryTriggerHolders`: which of a list of principals hold trigger on a
  channel now (the rule behind the run context's trust markers).
* :class:`ExplainDecision`: the decision OPA takes for an actor, action and resource,
  with the input sent and the bundle revision that decided, built by the same
  builders and statements as the real use cases (acting-for included); hypothetical,
  so neither audited nor counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.decisions import Decision
from app.domain.facts import FactBundle
from app.errors import NotFound, ValidationFailed
from app.policy import PolicyGateway, resources
from app.policy.inputs import ActingForInput, DecisionInput, Resource
from app.usecases.base import Reads
from app.usecases.runners import acting_for_input
from repositories.principals import Actor
from repositories.unit_of_work import UnitOfWork

__all__ = ["ExplainDecision", "QueryTriggerHolders"]


@dataclass(frozen=True, kw_only=True, eq=False)
class QueryTriggerHolders(Reads):
    """Answer ``queryTriggerHolders`` (``authz.trigger_holders.query``).

    Attributes:
        policy: answers the trigger holders.
    """

    policy: PolicyGateway

    def __call__(
        self, actor: Actor, action: str, channel_id: str, principal_ids: list[str]
    ) -> dict[str, Any]:
        """The ids among ``principal_ids`` holding trigger on the channel, ascending, unique.

        Raises:
            Forbidden: the caller is neither an instance owner nor an app with the
                inspect permission (reason from the policy).
            NotFound: the channel does not exist (for an allowed caller).
            OpaUnavailable: OPA cannot answer.
        """
        with self.reader() as uow:
            # Decide on the caller's facts first, so that a caller without the right
            # cannot make the service gather facts for a long list of principals.
            self.authorizer.require(
                actor,
                action,
                resources.channel(channel_id),
                uow.facts.bundle([actor.id], [channel_id]),
            )
            facts = uow.facts.bundle(principal_ids, [channel_id])
        holders = self.policy.trigger_holders(
            {"channel_id": channel_id, "candidates": sorted(set(principal_ids)), "facts": facts}
        )
        return {"channel_id": channel_id, "holders": list(holders)}


@dataclass(frozen=True, kw_only=True, eq=False)
class ExplainDecision(Reads):
    """Answer ``explainDecision`` (``authz.explain``, instance owners).

    The authorizer decides the explain request itself (and audits its denials).

    Attributes:
        policy: takes the explained (hypothetical, unaudited) decision.
    """

    policy: PolicyGateway

    def __call__(self, actor: Actor, action: str, body: dict[str, Any]) -> dict[str, Any]:
        """OPA's decision for ``body``'s actor, action and resource, with its input and
        ``policy_revision``, the bundle revision that decided (absent when the sidecar
        serves no bundle revision).

        The input holds ids, kinds, states and levels only, never content or names.

        Raises:
            Forbidden: the caller is not an instance owner.
            NotFound: the subject actor or the ``acting_for`` run does not exist.
            ValidationFailed: a channel or run resource without an id.
            OpaUnavailable: OPA cannot answer.
        """
        kind = body["resource"]["kind"]
        resource_id = body["resource"].get("id")
        if kind != "instance" and resource_id is None:
            raise ValidationFailed(
                "This resource kind needs an id.",
                [{"path": "body/resource/id", "message": "required"}],
            )
        subject_id = body["actor_id"]
        with self.reader() as uow:
            # Authorize first: a non-owner must not learn which principal ids exist, nor
            # make the service load anything.
            self.authorizer.require(
                actor, action, resources.instance(), uow.facts.bundle([actor.id], [])
            )
            acting_for = _acting_for(uow, body.get("acting_for"))
            others = (
                []
                if acting_for is None or "requester" not in acting_for
                else [acting_for["requester"]]
            )
            resource, facts = _gather(uow, kind, str(resource_id), subject_id, others)
        if subject_id not in facts["principals"]:
            raise NotFound()
        explained: DecisionInput = {
            "action": body["action"],
            "actor": subject_id,
            "resource": resource,
            "facts": facts,
        }
        if acting_for is not None:
            explained["acting_for"] = acting_for
        decision = self.policy.decide(explained)
        answer: dict[str, Any] = {"decision": _decision_view(decision), "input": explained}
        if decision.revision is not None:
            answer["policy_revision"] = decision.revision
        return answer


def _acting_for(uow: UnitOfWork, body: dict[str, Any] | None) -> ActingForInput | None:
    """The ``input.acting_for`` of a relayed call with this run bound (404 if unknown)."""
    if body is None:
        return None
    run = uow.runners.run(body["run_id"])
    if run is None:
        raise NotFound()
    return acting_for_input(run)


def _decision_view(decision: Decision) -> dict[str, Any]:
    """``Decision``: allow, reason, status and, for an acting-for decision, its mode."""
    view: dict[str, Any] = {
        "allow": decision.allow,
        "reason": decision.reason,
        "status": decision.status,
    }
    if decision.acting_for is not None:
        acting_for = decision.acting_for.view()
        if acting_for["mode"] == "run":
            acting_for["failed"] = list(decision.acting_for.failed)
        view["acting_for"] = acting_for
    return view


def _gather(
    uow: UnitOfWork, kind: str, resource_id: str, subject_id: str, others: list[str]
) -> tuple[Resource, FactBundle]:
    """The resource and facts the real request of ``subject_id`` would send.

    ``others`` holds the requester of an explained acting-for call (or nothing): a
    channel's facts cover it too, as the relayed call's do.
    """
    if kind == "channel":
        return (
            resources.channel(resource_id),
            uow.facts.bundle([subject_id, *others], [resource_id]),
        )
    if kind == "run":
        run = uow.run_context.load(resource_id, subject_id)
        if run is None:
            # An unknown run is decided like the real request would see it: no facts
            # about a channel, so the policy answers not_found.
            return {"kind": "run", "id": resource_id}, uow.facts.bundle([subject_id], [])
        s = run.surroundings
        return (
            resources.run(
                run.run_id, agent_id=s.agent_id, channel_id=s.channel_id, state=run.state
            ),
            run.facts,
        )
    return resources.instance(), uow.facts.bundle([subject_id], [])
