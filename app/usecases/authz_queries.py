"""Authorization queries for operators and reviewers.

* :func:`query_trigger_holders`: which of a list of principals hold trigger on a
  channel now; the same Rego rule the run context's trust markers use.
* :func:`explain_decision`: the decision OPA takes for a given actor, action and
  resource, with the exact input sent, so a reviewer can see why without logs. The
  explained decision is hypothetical: it is not audited and changes nothing.
"""

from __future__ import annotations

from typing import Any

from app.errors import NotFound, ValidationFailed
from app.opa_client import OpaUnavailable
from app.services import Services
from app.usecases.authorization import ask, authorize
from repositories.principals import Actor

__all__ = ["HOLDERS_PATH", "explain_decision", "query_trigger_holders"]

HOLDERS_PATH = "runcontext/trigger_holders"


def query_trigger_holders(
    services: Services, actor: Actor, action: str, channel_id: str, principal_ids: list[str]
) -> dict[str, Any]:
    """The ids among ``principal_ids`` holding trigger on the channel, ascending, unique.

    Raises:
        Forbidden: the caller is neither an instance owner nor an app with the inspect
            permission (reason from the policy).
        NotFound: the channel does not exist (for an allowed caller).
        ServiceUnavailable: OPA cannot answer.
    """
    with services.reader() as uow:
        # Decide on the caller's facts first, so that a caller without the right cannot
        # make the service gather facts for a long list of principals.
        authorize(
            services,
            actor,
            action,
            {"kind": "channel", "id": channel_id},
            uow.facts.bundle([actor.id], [channel_id]),
        )
        facts = uow.facts.bundle(principal_ids, [channel_id])
    holders = services.opa.query(
        HOLDERS_PATH,
        {"channel_id": channel_id, "candidates": sorted(set(principal_ids)), "facts": facts},
    )
    if not isinstance(holders, list) or not all(isinstance(h, str) for h in holders):
        raise OpaUnavailable("trigger holders have the wrong shape")
    return {"channel_id": channel_id, "holders": holders}


def explain_decision(
    services: Services, actor: Actor, action: str, body: dict[str, Any]
) -> dict[str, Any]:
    """OPA's decision for ``body``'s actor, action and resource, with its input.

    The facts are gathered exactly as the real request would gather them; the input
    holds ids, kinds, states and levels only, never content or names.

    Raises:
        Forbidden: the caller is not an instance owner.
        NotFound: the subject actor does not exist.
        ValidationFailed: a channel or run resource without an id.
        ServiceUnavailable: OPA cannot answer.
    """
    resource_kind = body["resource"]["kind"]
    resource_id = body["resource"].get("id")
    if resource_kind != "instance" and resource_id is None:
        raise ValidationFailed(
            "This resource kind needs an id.", [{"path": "body/resource/id", "message": "required"}]
        )
    subject_id = body["actor_id"]
    with services.reader() as uow:
        # Authorize first: a non-owner must not learn which principal ids exist, nor
        # make the service load anything.
        authorize(services, actor, action, {"kind": "instance"}, uow.facts.bundle([actor.id], []))
        resource: dict[str, Any] = {"kind": resource_kind}
        channels: list[str] = []
        if resource_kind == "channel":
            resource["id"] = resource_id
            channels.append(str(resource_id))
        elif resource_kind == "run":
            run = uow.runs.context_facts(str(resource_id))
            resource["id"] = resource_id
            if run is not None:
                resource.update(agent_id=run.agent_id, channel_id=run.channel_id, state=run.state)
                channels.append(run.channel_id)
        facts = uow.facts.bundle([subject_id], channels)
    if subject_id not in facts["principals"]:
        raise NotFound()
    explained_input = {
        "action": body["action"],
        "actor": subject_id,
        "resource": resource,
        "facts": facts,
    }
    decision = ask(services.opa, explained_input)
    return {
        "decision": {"allow": decision.allow, "reason": decision.reason, "status": decision.status},
        "input": explained_input,
    }
