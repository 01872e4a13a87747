"""Families of runs bound to a session: the runner actions and the calls made for a
bound run's requester (acting for, issue 21)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from app.domain.facts import GrantFacts, PrincipalFacts
from app.policy import resources
from app.policy.gateway import DECISION
from app.policy.inputs import ActingForInput, BoundRunFacts, Resource
from policydiff.corpus import Record
from policydiff.families.base import (
    CHANNEL,
    GROUP,
    LEVELS,
    OTHER_RUNNER,
    RUN,
    RUNNER,
    Family,
    Generator,
    decision_input,
    fact_bundle,
    generated_record,
    grant_facts,
    grants_of,
    principal_facts,
)
from repositories.models import ACTING_FOR_VALUES, BINDING_STATES, RUN_STATES

_RELAY, _RUN_BIND = "runner.comms.relay", "runner.session.run.bind"
# Who the run bound to a session (or asked to be bound) belongs to.
_RUN_OWNERS = {"binding's agent": None, "other agent": "texter"}


def _runs_of_a_binding(g: Generator) -> Iterator[tuple[str, str, str | None]]:
    """(run state or ``-``, whose run, its state): no run, or a run in every state of
    the binding's agent and of another agent."""
    yield "-", "-", None
    for state, owner in itertools.product(g.enum("state", RUN_STATES), _RUN_OWNERS):
        yield state, owner, state


def _runner_actions(g: Generator) -> Iterator[Record]:
    """runner.*: enrolment, binding ownership, epoch, state and the bound agent.

    The relay also varies the run bound to the session (``input.acting_for``), and
    binding a run the run asked for (``resource.run``): none, or one in every state,
    of the binding's agent or of another agent.
    """
    bindings = (
        ("none", "-", "-"),
        *itertools.product(
            ("own", "stale epoch", "other runner"),
            g.enum("state", BINDING_STATES),
            ("active agent", "disabled agent", "a person"),
        ),
    )
    runs = list(_runs_of_a_binding(g))
    for action, caller, binding in itertools.product(
        g.runner_actions, ("enrolled runner", "runner never enrolled", "person"), bindings
    ):
        holder, state, agent = binding
        actor = "alex" if caller == "person" else RUNNER
        principals: dict[str, PrincipalFacts] = {}
        if caller == "person":
            principals["alex"] = principal_facts("user")
        facts = fact_bundle(principals)
        if caller != "person":
            facts["runners"] = {
                RUNNER: {"enrolled": caller == "enrolled runner", "enrollment_epoch": 3}
            }
        resource: Resource = resources.no_binding()
        agent_id = "sam" if agent == "a person" else "lotse"
        if holder != "none":
            principals[agent_id] = (
                principal_facts("user")
                if agent == "a person"
                else principal_facts("agent", "disabled" if agent == "disabled agent" else "active")
            )
            resource = resources.binding(
                runner_id=OTHER_RUNNER if holder == "other runner" else RUNNER,
                enrollment_epoch=2 if holder == "stale epoch" else 3,
                state=state,
                agent_id=agent_id,
            )
        dimensions = {"caller": caller, "binding": holder, "state": state, "agent": agent}
        if action not in (_RELAY, _RUN_BIND):
            yield generated_record(
                DECISION, decision_input(action, actor, resource, facts), action, **dimensions
            )
            continue
        for run_state, owner, live in runs:
            if holder == "none" and live is not None:
                continue  # the service sends no run with a binding it did not find
            request = decision_input(action, actor, resource, facts)
            if live is not None:
                run = _bound_run(live, agent_id=_RUN_OWNERS[owner] or agent_id)
                if action == _RELAY:
                    request["acting_for"] = {"run": run, "requester": "alex"}
                else:
                    request["resource"] = {**resource, "run": run}
            yield generated_record(
                DECISION,
                request,
                action,
                **dimensions,
                **{"bound_run" if action == _RELAY else "run": run_state, "run_of": owner},
            )


def _bound_run(state: str, *, agent_id: str = "lotse") -> BoundRunFacts:
    return {"id": RUN, "agent_id": agent_id, "state": state}


def _runner_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """An enrolled runner with its own binding, in each state its actions accept.

    Binding a run asks for the binding's agent's live run. Every action once more
    through a bound session with a live run bound: the relay names mode run, the
    others (which the service never sends a bound run) must answer as without.
    """
    for action, state in itertools.product(g.runner_actions, ("bound", "provisioned")):
        facts = fact_bundle({"lotse": principal_facts("agent")})
        facts["runners"] = {
            RUNNER: {"enrolled": True, "enrollment_epoch": 3},
            OTHER_RUNNER: {"enrolled": True, "enrollment_epoch": 3},
        }
        run = _bound_run("running") if action == _RUN_BIND else None
        resource = resources.binding(
            runner_id=RUNNER, enrollment_epoch=3, state=state, agent_id="lotse", run=run
        )
        request = decision_input(action, RUNNER, resource, facts)
        yield DECISION, request
        if state == "bound":
            yield DECISION, {**request, "acting_for": _acting_for("running")}


# ---------------------------------------------------------------- acting for (issue 21)

# The requester of every generated bound run: the author of its triggering message.
_REQUESTER = "alex"
# The decision tables of calls made for a bound run's requester (introduced in doc.py).
ACTING_FOR_TABLE = "acting for a run"
REQUIRED_TABLE = "agents that act only for someone"


def _acting_for(state: str, *, agent_id: str = "lotse") -> ActingForInput:
    """``input.acting_for`` of a call through a session with the run ``run-1`` bound."""
    return {"run": _bound_run(state, agent_id=agent_id), "requester": _REQUESTER}


def _relayed_actions(g: Generator) -> tuple[str, ...]:
    """The channel actions and every action the requirements data names.

    A relayed action a reviewer adds to the data is generated without editing this
    module; ``message.read`` has no entry and shows the fail-closed rule.
    """
    return tuple(dict.fromkeys([*g.channel_actions, *sorted(g.requirements)]))


def _acting_for_runs(g: Generator) -> Iterator[Record]:
    """A call of the agent Lotse for Alex: action x both direct levels x the bound run.

    ``run`` is the state of the run bound to the session, ``no run bound`` sends no
    ``input.acting_for``. The requester's other facts (status, expiry, group, space,
    membership, archive) are the same ``levels.level`` as the actor's in the channel
    family; the pivots vary them one at a time.
    """
    runs = ("no run bound", *g.enum("state", RUN_STATES))
    sides = ("none", *LEVELS)
    for action, agent_grant, requester_grant, run in itertools.product(
        _relayed_actions(g), sides, sides, runs
    ):
        principals = {"lotse": principal_facts("agent"), _REQUESTER: principal_facts("user")}
        grants = grants_of("lotse", (agent_grant, "direct", "never")) + grants_of(
            _REQUESTER, (requester_grant, "direct", "never")
        )
        request = decision_input(
            action, "lotse", resources.channel(CHANNEL), fact_bundle(principals, grants=grants)
        )
        if run != "no run bound":
            request["acting_for"] = _acting_for(run)
        yield generated_record(
            DECISION,
            request,
            ACTING_FOR_TABLE,
            action=action,
            agent_grant=agent_grant,
            requester_grant=requester_grant,
            run=run,
        )


def _required_agents(g: Generator) -> Iterator[Record]:
    """An agent's ``acting_for`` attribute x the bound run x its own level.

    The requester Alex is a member of the channel (write), so that no record of this
    table is one of the table above (a duplicate would lose its label).
    """
    attributes = ("absent", *g.enum("acting_for", ACTING_FOR_VALUES))
    runs = {"none": None, "live": "running", "ended": "succeeded"}
    for action, attribute, run, agent_grant in itertools.product(
        _relayed_actions(g), attributes, runs, ("none", "read", "write")
    ):
        agent = principal_facts("agent")
        if attribute != "absent":
            agent["acting_for"] = attribute
        facts = fact_bundle(
            {"lotse": agent, _REQUESTER: principal_facts("user")},
            members=[_REQUESTER],
            grants=grants_of("lotse", (agent_grant, "direct", "never")),
        )
        request = decision_input(action, "lotse", resources.channel(CHANNEL), facts)
        state = runs[run]
        if state is not None:
            request["acting_for"] = _acting_for(state)
        yield generated_record(
            DECISION,
            request,
            REQUIRED_TABLE,
            action=action,
            acting_for=attribute,
            bound_run=run,
            agent_grant=agent_grant,
        )


def _acting_for_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Per relayed action, both sides at exactly the level the action needs.

    The requester reaches the channel each way (a grant on it, through a group, on
    the space, as a member, as the instance owner); the agent holds a direct grant.
    Then an agent that acts only for someone, once without a run (``run_required``)
    and once with a live one, and an action without a requirement (fail closed).
    """
    for action, level in sorted(g.requirements.items()):
        agent_grant = grant_facts("lotse", level, "direct", "future")
        ways: list[tuple[PrincipalFacts, list[GrantFacts], list[str]]] = [
            (principal_facts("user"), [grant_facts(_REQUESTER, level, "direct", "future")], []),
            (
                principal_facts("user", groups=[GROUP]),
                [grant_facts(_REQUESTER, level, "group", "future")],
                [],
            ),
            (principal_facts("user"), [grant_facts(_REQUESTER, level, "space", "future")], []),
            (principal_facts("user"), [], [_REQUESTER]),
            (principal_facts("user", owner=True), [], []),
        ]
        for requester, grants, members in ways:
            facts = fact_bundle(
                {"lotse": principal_facts("agent"), _REQUESTER: requester},
                members=members,
                grants=[agent_grant, *grants],
                extra_channels=True,
            )
            request = decision_input(action, "lotse", resources.channel(CHANNEL), facts)
            yield DECISION, {**request, "acting_for": _acting_for("running")}
        required = principal_facts("agent")
        required["acting_for"] = "required"
        facts = fact_bundle(
            {"lotse": required, _REQUESTER: principal_facts("user")},
            grants=[agent_grant, grant_facts(_REQUESTER, level, "direct", "future")],
            extra_channels=True,
        )
        request = decision_input(action, "lotse", resources.channel(CHANNEL), facts)
        yield DECISION, request
        yield DECISION, {**request, "acting_for": _acting_for("running")}
    for action in _relayed_actions(g):
        if action not in g.requirements:
            facts = fact_bundle(
                {"lotse": principal_facts("agent"), _REQUESTER: principal_facts("user")},
                grants=[
                    grant_facts("lotse", "manage", "direct", "future"),
                    grant_facts(_REQUESTER, "manage", "direct", "future"),
                ],
                extra_channels=True,
            )
            request = decision_input(action, "lotse", resources.channel(CHANNEL), facts)
            yield DECISION, {**request, "acting_for": _acting_for("running")}


def _acting_for_records(g: Generator) -> Iterator[Record]:
    yield from _acting_for_runs(g)
    yield from _required_agents(g)


# In the order of the generated corpus.
FAMILIES = (
    Family("runner actions", _runner_actions, _runner_pivots),
    Family("acting for", _acting_for_records, _acting_for_pivots),
)
