"""Families of ``authz/decision``: channel, run and instance actions, the trigger
holders query and the workspace provision."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from app.domain.facts import GrantFacts, PrincipalFacts
from app.policy import resources
from app.policy.gateway import DECISION
from app.policy.inputs import Resource
from policydiff.corpus import Record
from policydiff.families.base import (
    ACTORS,
    CHANNEL,
    GROUP,
    RUN,
    Family,
    Generator,
    decision_input,
    fact_bundle,
    generated_record,
    grant_facts,
    grants_of,
    level_cases,
    principal_facts,
)
from repositories.models import RUN_STATES


def _channel_actions(g: Generator) -> Iterator[Record]:
    """message.list, message.read, message.post over the whole level fact space."""
    dims = itertools.product(g.channel_actions, ACTORS, g.listed_statuses, level_cases())
    for action, actor_type, status, case in dims:
        actor, kind, owner = ACTORS[actor_type]
        yield generated_record(
            DECISION,
            decision_input(
                action,
                actor,
                resources.channel(CHANNEL),
                case.facts(actor, kind, status, owner=owner),
            ),
            action,
            actor=actor_type,
            status=status,
            **case.dimensions(),
        )


def _channel_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Per action, one pivot per way to reach the channel, at the action's level."""
    for action in g.channel_actions:
        level = "write" if action == "message.post" else "read"
        people = {"alex": principal_facts("user", groups=[GROUP])}
        ways: list[tuple[dict[str, PrincipalFacts], list[GrantFacts], list[str], str]] = [
            (people, [grant_facts("alex", level, "direct", "future")], [], "none"),
            (people, [grant_facts("alex", level, "group", "future")], [], "none"),
            (people, [grant_facts("alex", level, "space", "future")], [], "none"),
            (people, [], ["alex"], "none"),
            (people, [grant_facts("alex", "read", "direct", "future")], [], "channel"),
            ({"alex": principal_facts("user", owner=True)}, [], [], "none"),
        ]
        for principals, grants, members, archived in ways:
            facts = fact_bundle(
                principals,
                archived=archived,
                members=members,
                grants=grants,
                extra_channels=True,
            )
            yield DECISION, decision_input(action, "alex", resources.channel(CHANNEL), facts)


# The labels of a record in its decision table: dimension to value.
Labels = dict[str, str]

_RUN_ACTORS: dict[str, tuple[str, str, bool]] = {
    "run agent": ("lotse", "agent", False),
    "other agent": ("texter", "agent", False),
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "app": ("importer", "app", False),
}


def _run_actions(g: Generator) -> Iterator[Record]:
    """run.context.read and the run privacy actions: actor, status, run state, access."""
    states = (*g.enum("state", RUN_STATES), "no such run")
    for action, actor_type, status, state, access in itertools.product(
        g.run_actions, _RUN_ACTORS, g.statuses, states, ("none", "read")
    ):
        actor, kind, owner = _RUN_ACTORS[actor_type]
        principals = {actor: principal_facts(kind, status, owner=owner)}
        if actor != "lotse":
            principals["lotse"] = principal_facts("agent")
        facts = fact_bundle(
            principals,
            grants=grants_of(actor, ("read", "direct", "never")) if access == "read" else [],
        )
        resource: Resource = (
            {"kind": "run", "id": RUN}
            if state == "no such run"
            else resources.run(RUN, agent_id="lotse", channel_id=CHANNEL, state=state)
        )
        labels = {"actor": actor_type, "status": status, "run": state, "access": access}
        yield generated_record(
            DECISION, decision_input(action, actor, resource, facts), action, **labels
        )


def _run_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The run's agent on its live run; another agent and a person who read the channel."""
    for action in g.run_actions:
        for actor, kind in (("lotse", "agent"), ("texter", "agent"), ("alex", "user")):
            principals = {actor: principal_facts(kind), "lotse": principal_facts("agent")}
            facts = fact_bundle(
                principals,
                grants=[grant_facts(actor, "read", "direct", "future")] if actor != "lotse" else [],
                extra_channels=True,
            )
            resource = resources.run(RUN, agent_id="lotse", channel_id=CHANNEL, state="running")
            yield DECISION, decision_input(action, actor, resource, facts)


# Actions no family of its own generates (the others are checked against
# vocabulary["action"] in _instance_actions).
_UNKNOWN_ACTIONS = ("admin.everything", "message.delete")


def _instance_actors(g: Generator) -> Iterator[tuple[str, dict[str, PrincipalFacts], Labels]]:
    """(actor id, principals, table labels) for instance-wide questions.

    Every principal kind of :data:`ACTORS` is generated with and without each
    permission the authorization rules compare, so every kind holds them once.
    """
    held = ("none", *g.permissions)
    for actor_type, status, permission in itertools.product(ACTORS, g.statuses, held):
        actor, kind, owner = ACTORS[actor_type]
        permissions = [] if permission == "none" else [permission]
        principal = principal_facts(kind, status, owner=owner, permissions=permissions)
        labels = {"actor": actor_type, "status": status, "permission": permission}
        yield actor, {actor: principal}, labels
    yield "nobody", {}, {"actor": "unknown", "status": "-", "permission": "-"}


def _instance_action_names(g: Generator) -> list[str]:
    """Every action the policies name that no other family generates, plus unknown ones."""
    others = {
        *g.channel_actions,
        *g.run_actions,
        *g.runner_actions,
        _HOLDERS_QUERY,
        _PROVISION,
    }
    named = sorted(g.vocabulary.rego.get("action", ()))
    return [action for action in named if action not in others] + list(_UNKNOWN_ACTIONS)


def _instance_actions(g: Generator) -> Iterator[Record]:
    """admin.*, explain, health, session_context.resolve and unknown actions."""
    for action in _instance_action_names(g):
        for actor, principals, labels in _instance_actors(g):
            request = decision_input(action, actor, resources.instance(), fact_bundle(principals))
            yield generated_record(DECISION, request, action, **labels)


def _instance_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Per instance-wide action: an active owner, and what another action's rule wants.

    The second pivot is the trigger-holder query's allowed case (an app holding every
    compared permission, on a known channel) asked for this action: a rule that
    forgets to check its action shows there.
    """
    for action in _instance_action_names(g):
        principals = {"robin": principal_facts("user", owner=True)}
        yield (
            DECISION,
            decision_input(action, "robin", resources.instance(), fact_bundle(principals)),
        )
        app = {"importer": principal_facts("app", permissions=g.permissions)}
        facts = fact_bundle(app, extra_channels=True)
        yield DECISION, decision_input(action, "importer", resources.channel(CHANNEL), facts)


_HOLDERS_QUERY = "authz.trigger_holders.query"


def _trigger_holders_query(g: Generator) -> Iterator[Record]:
    """authz.trigger_holders.query: who may ask, on a known or an unknown channel."""
    for channel in ("known", "unknown"):
        target = CHANNEL if channel == "known" else "nowhere"
        for actor, principals, labels in _instance_actors(g):
            resource = resources.channel(target)
            request = decision_input(_HOLDERS_QUERY, actor, resource, fact_bundle(principals))
            yield generated_record(DECISION, request, _HOLDERS_QUERY, **labels, channel=channel)


def _trigger_holders_query_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The owner and an app with every compared permission, on the known channel."""
    for actor, principal in (
        ("robin", principal_facts("user", owner=True)),
        ("importer", principal_facts("app", permissions=g.permissions)),
    ):
        facts = fact_bundle({actor: principal}, extra_channels=True)
        yield DECISION, decision_input(_HOLDERS_QUERY, actor, resources.channel(CHANNEL), facts)


_PROVISION = "agent.workspace.provision"


def _workspace_provision(g: Generator) -> Iterator[Record]:
    """agent.workspace.provision: who provisions for which agent."""
    targets = ("own agent", "agent of another person", "agent without owner", "a person", "unknown")
    for actor_type, status, target, agent_status in itertools.product(
        ACTORS, g.statuses, targets, ("active", "disabled")
    ):
        if target in ("a person", "unknown") and agent_status == "disabled":
            continue
        actor, kind, owner = ACTORS[actor_type]
        principals = {actor: principal_facts(kind, status, owner=owner)}
        target_id = "texter"
        if target == "a person":
            target_id = "sam"
            principals["sam"] = principal_facts("user")
        elif target != "unknown":
            principals.setdefault(target_id, principal_facts("agent", agent_status))
        owner_id = {"own agent": actor, "agent of another person": "sam"}.get(target)
        yield generated_record(
            DECISION,
            decision_input(
                _PROVISION,
                actor,
                resources.agent(target_id, owner_id=owner_id),
                fact_bundle(principals),
            ),
            _PROVISION,
            actor=actor_type,
            status=status,
            target=target,
            agent=agent_status if target not in ("a person", "unknown") else "-",
        )


def _workspace_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The agent's owner, and an instance owner provisioning another person's agent."""
    for actor, principal, owner_id in (
        ("alex", principal_facts("user"), "alex"),
        ("robin", principal_facts("user", owner=True), "sam"),
    ):
        principals = {
            actor: principal,
            "texter": principal_facts("agent"),
            "sam": principal_facts("user"),
        }
        resource = resources.agent("texter", owner_id=owner_id)
        yield DECISION, decision_input(_PROVISION, actor, resource, fact_bundle(principals))


# In the order of the generated corpus.
FAMILIES = (
    Family("channel actions", _channel_actions, _channel_pivots),
    Family("run actions", _run_actions, _run_pivots),
    Family("instance actions", _instance_actions, _instance_pivots),
    Family("trigger holders query", _trigger_holders_query, _trigger_holders_query_pivots),
    Family("workspace provision", _workspace_provision, _workspace_pivots),
)
