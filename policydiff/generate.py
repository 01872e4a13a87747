"""The generated corpus: the fact space of every action and entry point, adequate by construction.

Three layers, all deterministic:

1. **Families** (the decision tables). Each family builds the inputs of one kind of
   question from a few dimensions (principal kind and status, grant level and how it
   reaches the channel, expiry, membership, DM or regular, archive flags, run state,
   ...) and enumerates their product. Every record carries its dimensions as its
   ``label``, which the decision tables (:mod:`policydiff.doc`) read.
2. **Variants of pivots** (the adequacy layer, :mod:`policydiff.variants`). Each
   family names a few *pivots*, inputs where its rules are met, and every fact of a
   pivot is changed on its own: another id of the world where the rules compare ids
   (another channel of the same space, another space, another runner, another
   agent's run), each time at the boundary of ``now`` (one second before, exactly,
   one second after) and malformed, every other value and an ``unknown`` value of
   every enum, wrong types and missing keys of every stored fact, permissions for
   every principal kind.
3. **Mixtures**: seeded inputs with several grants and candidates at once (the
   maximum of levels, several holders), drawn with :class:`random.Random`.

**Derived, not listed.** The values of every enum come from the service's schema
(``repositories/models.py``, ``app/domain/privacy.py``) *and from the policies
themselves*: every string a rule compares with an input field, read from OPA's AST
(:func:`policydiff.rego.vocabulary`), so a new state, origin, kind, level or action
in Rego is generated without editing this module. The session-context registry
(surfaces, tools, permissions) is read from the policies folder. The shapes that
variants change come from the typed inputs (``app/policy/inputs.py``), so a new
field of the input contract is varied as soon as it is typed.

**Adding a family** (a new action or input, e.g. a session bound to a run): write a
function that yields labelled records over the new dimensions (for the table) and a
function that yields one pivot per rule branch that allows (or answers
differently), and add both to :data:`FAMILIES`. The variants, the unknown values and
the boundaries follow from the pivots.

Ids are readable names (``alex``, ``general``) rather than uuids: the policies compare
ids only for equality, and reviewers read the examples.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from app.domain.facts import FactBundle, GrantFacts, PrincipalFacts
from app.domain.privacy import CEILING_KINDS, CEILING_LEVELS
from app.policy import inputs, resources
from app.policy.gateway import (
    DECISION,
    PRIVACY_ATTEMPT,
    PRIVACY_WRITE,
    RUN_CONTEXT,
    SESSION_CONTEXT,
    TRIGGER_HOLDERS,
)
from app.policy.inputs import (
    ActingForInput,
    BoundRunFacts,
    CandidateThread,
    CeilingFacts,
    IntentRef,
    PrivacyAttemptInput,
    PrivacyRunFacts,
    PrivacyWriteInput,
    Resource,
    RunContextInput,
    RunRef,
    SessionContextInput,
    TaskFacts,
    TriggerHoldersInput,
)
from policydiff.corpus import Record, dedupe
from policydiff.rego import parse_modules, vocabulary
from policydiff.scratch import data_files
from policydiff.variants import Variants, Vocabulary, World
from repositories.models import (
    ACTING_FOR_VALUES,
    BINDING_STATES,
    CHANNEL_KINDS,
    GRANT_LEVELS,
    MESSAGE_ORIGINS,
    PRINCIPAL_KINDS,
    PRINCIPAL_STATUSES,
    RUN_STATES,
)

__all__ = [
    "ACTING_FOR_TABLE",
    "DEFAULT_SEED",
    "FAMILIES",
    "LEVELS",
    "NOW",
    "ORIGINS",
    "REQUIRED_TABLE",
    "RUN_STATES",
    "STATUSES",
    "Family",
    "Generator",
    "generate",
    "glossary",
]

DEFAULT_SEED = 11
OPA = Path(__file__).resolve().parents[1] / ".bin" / "opa"

# The fixed clock of every generated input; expiries lie around it.
NOW = "2026-12-01T12:00:00Z"
AROUND_NOW = ("2026-12-01T11:59:59Z", "2026-12-01T12:00:01Z")
_EXPIRES = {"never": None, "future": "2026-12-31T12:00:00Z", "past": "2026-11-30T12:00:00Z"}

# The schema's lists (the policies add their own values, see Generator.vocabulary).
STATUSES = PRINCIPAL_STATUSES
LEVELS = GRANT_LEVELS
ORIGINS = MESSAGE_ORIGINS
VIAS = ("direct", "group", "space")

# Readable ids of the world. People are Alex, Sam and Robin (the instance owner).
SPACE, OTHER_SPACE = "support", "marketing"
CHANNEL, SIBLING_CHANNEL, OTHER_CHANNEL = "general", "billing", "campaigns"
GROUP, OTHER_GROUP = "team", "ops"
RUN, OTHER_RUN = "run-1", "run-2"
RUNNER, OTHER_RUNNER = "runner-1", "runner-2"

# Each id and the ids of the same kind beside it: what a variant swaps it for.
_SIBLINGS: dict[str, tuple[str, ...]] = {
    "alex": ("sam",),
    "sam": ("alex",),
    "robin": ("alex",),
    "lotse": ("texter",),
    "texter": ("lotse",),
    "importer": ("inspector",),
    "inspector": ("importer",),
    CHANNEL: (SIBLING_CHANNEL, OTHER_CHANNEL),
    SIBLING_CHANNEL: (CHANNEL,),
    OTHER_CHANNEL: (CHANNEL,),
    SPACE: (OTHER_SPACE,),
    OTHER_SPACE: (SPACE,),
    GROUP: (OTHER_GROUP,),
    OTHER_GROUP: (GROUP,),
    RUN: (OTHER_RUN,),
    RUNNER: (OTHER_RUNNER,),
    OTHER_RUNNER: (RUNNER,),
    "thread-run": ("thread-main",),
    "thread-main": ("thread-run",),
    "thread-other": ("thread-run",),
    "thread-moved": ("thread-run",),
}
WORLD = World(siblings=_SIBLINGS, now=NOW, around_now=AROUND_NOW)


def glossary() -> dict[str, str]:
    """Who or what each id of the world is, in the words of the decision tables."""
    return {
        "alex": "person",
        "sam": "other person",
        "robin": "owner",
        "lotse": "agent",
        "texter": "other agent",
        "importer": "app",
        "inspector": "app",
        CHANNEL: "channel",
        SIBLING_CHANNEL: "other channel of the space",
        OTHER_CHANNEL: "channel of another space",
        SPACE: "space",
        OTHER_SPACE: "other space",
        GROUP: "group",
        OTHER_GROUP: "other group",
        RUN: "run",
        OTHER_RUN: "other run",
        RUNNER: "runner",
        OTHER_RUNNER: "other runner",
    }


def _resource_kinds() -> tuple[str, ...]:
    """The resource kinds of the input contract (the ``kind`` literals of ``Resource``)."""
    kinds: list[str] = []
    for member in get_args(inputs.Resource):
        field = get_type_hints(member).get("kind")
        if field is not None and get_origin(field) is Literal:
            kinds += [str(value) for value in get_args(field)]
    return tuple(kinds)


# The schema's value lists of each enum field (a field name can have several).
DOMAINS: dict[str, tuple[tuple[str, ...], ...]] = {
    "status": (PRINCIPAL_STATUSES,),
    "kind": (
        PRINCIPAL_KINDS,
        CHANNEL_KINDS,
        ("principal", "group"),
        ("channel", "space"),
        _resource_kinds(),
    ),
    "origin": (MESSAGE_ORIGINS,),
    "state": (RUN_STATES, BINDING_STATES),
    "level": (GRANT_LEVELS, CEILING_LEVELS),
    "plane": (("client", "server"),),
    "acting_for": (ACTING_FOR_VALUES,),
}


# ---------------------------------------------------------------- the generator


@dataclass(frozen=True)
class Generator:
    """What the families build from: the vocabulary and the session-context registry.

    Attributes:
        vocabulary: the values of every enum field (schema and policies).
        registry: the session-context registry of the policies folder.
        requirements: the level a bound run's requester needs per relayed action
            (the acting-for policy data of the policies folder).
    """

    vocabulary: Vocabulary
    registry: dict[str, Any]
    requirements: dict[str, str]

    def enum(self, field: str, domain: Sequence[str]) -> tuple[str, ...]:
        """``domain``, the policies' new values of ``field``, and ``unknown``."""
        return self.vocabulary.enum(field, domain)

    @property
    def statuses(self) -> tuple[str, ...]:
        """Principal statuses, with the policies' new ones and ``unknown``."""
        return self.enum("status", PRINCIPAL_STATUSES)

    @property
    def listed_statuses(self) -> tuple[str, ...]:
        """Principal statuses without ``unknown`` (for the largest product: its pivots'
        variants carry the unknown status)."""
        return self.statuses[:-1]

    @property
    def permissions(self) -> list[str]:
        """Permissions the authorization rules compare (``authz:inspect``)."""
        return sorted(self.vocabulary.rego.get("permissions", ()))


@dataclass(frozen=True)
class Family:
    """A kind of question: its table records and its pivots.

    Attributes:
        name: for people (``channel actions``).
        records: yields the labelled records of the family's product.
        pivots: yields ``(entrypoint, input)`` pivots whose variants are generated.
    """

    name: str
    records: Callable[[Generator], Iterator[Record]]
    pivots: Callable[[Generator], Iterator[tuple[str, Any]]]


def _principal(
    kind: str,
    status: str = "active",
    *,
    owner: bool = False,
    groups: Sequence[str] = (),
    permissions: Sequence[str] = (),
) -> PrincipalFacts:
    return {
        "kind": kind,
        "status": status,
        "is_owner": owner,
        "groups": list(groups),
        "permissions": list(permissions),
    }


def _facts(
    principals: dict[str, PrincipalFacts],
    *,
    channel_kind: str = "regular",
    archived: str = "none",
    members: Sequence[str] = (),
    grants: Sequence[GrantFacts] = (),
    extra_channels: bool = False,
) -> FactBundle:
    """The fact bundle of ``general`` in ``support``; ``extra_channels`` adds its neighbours.

    The neighbours are ``billing`` (another channel of ``support``) and ``campaigns``
    in the space ``marketing``: what variants swap the channel and the space for.
    """
    facts: FactBundle = {
        "now": NOW,
        "principals": principals,
        "channels": {
            CHANNEL: {
                "kind": channel_kind,
                "archived": archived in ("channel", "both"),
                "space_id": SPACE,
                "members": list(members),
            }
        },
        "spaces": {SPACE: {"archived": archived in ("space", "both")}},
        "grants": list(grants),
    }
    if extra_channels:
        for channel, space in ((SIBLING_CHANNEL, SPACE), (OTHER_CHANNEL, OTHER_SPACE)):
            facts["channels"][channel] = {
                "kind": "regular",
                "archived": False,
                "space_id": space,
                "members": [],
            }
        facts["spaces"][OTHER_SPACE] = {"archived": False}
    return facts


def _grant(principal_id: str, level: str, via: str, expiry: str) -> GrantFacts:
    """A grant of ``level`` reaching the channel ``via`` direct, a group or the space."""
    subject_kind, subject_id = ("group", GROUP) if via == "group" else ("principal", principal_id)
    target_kind, target_id = ("space", SPACE) if via == "space" else ("channel", CHANNEL)
    grant: GrantFacts = {
        "subject": {"kind": subject_kind, "id": subject_id},
        "target": {"kind": target_kind, "id": target_id},
        "level": level,
    }
    expires = _EXPIRES[expiry]
    if expires is not None:
        grant["expires_at"] = expires
    return grant


def _grants(principal_id: str, grant: tuple[str, str, str]) -> list[GrantFacts]:
    level, via, expiry = grant
    return [] if level == "none" else [_grant(principal_id, level, via, expiry)]


# A grant on the channel path: level, how it reaches the channel, expiry; "-" is none.
_GRANTS: tuple[tuple[str, str, str], ...] = (
    ("none", "-", "-"),
    *itertools.product(LEVELS, VIAS, _EXPIRES),
)


def _decision(action: str, actor: str, resource: Resource, facts: FactBundle) -> dict[str, Any]:
    return {"action": action, "actor": actor, "resource": resource, "facts": facts}


def _record(entrypoint: str, input: Any, table: str | list[str] | None, **facts: Any) -> Record:
    label = {"table": table, "facts": facts} if table is not None else None
    return Record(entrypoint=entrypoint, input=input, source="generated", label=label)


# ---------------------------------------------------------------- authz/decision

# The actor of each principal kind: id, kind and whether it is an instance owner.
_ACTORS: dict[str, tuple[str, str, bool]] = {
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "agent": ("lotse", "agent", False),
    "app": ("importer", "app", False),
}
_CHANNEL_ACTIONS = ("message.list", "message.read", "message.post")


def _channel_actions(g: Generator) -> Iterator[Record]:
    """message.list, message.read, message.post over the whole level fact space."""
    dims = itertools.product(
        _CHANNEL_ACTIONS,
        _ACTORS,
        g.listed_statuses,
        _GRANTS,
        ("no", "yes"),
        ("regular", "dm"),
        ("none", "channel", "space"),
    )
    for action, actor_type, status, grant, member, channel_kind, archived in dims:
        actor, kind, owner = _ACTORS[actor_type]
        groups = [GROUP] if grant[1] == "group" else []
        facts = _facts(
            {actor: _principal(kind, status, owner=owner, groups=groups)},
            channel_kind=channel_kind,
            archived=archived,
            members=[actor] if member == "yes" else [],
            grants=_grants(actor, grant),
        )
        yield _record(
            DECISION,
            _decision(action, actor, resources.channel(CHANNEL), facts),
            action,
            actor=actor_type,
            status=status,
            grant=grant[0],
            via=grant[1],
            expiry=grant[2],
            member=member,
            channel=channel_kind,
            archived=archived,
        )


def _channel_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Per action, one pivot per way to reach the channel, at the action's level."""
    for action in _CHANNEL_ACTIONS:
        level = "write" if action == "message.post" else "read"
        people = {"alex": _principal("user", groups=[GROUP])}
        ways: list[tuple[dict[str, PrincipalFacts], list[GrantFacts], list[str], str]] = [
            (people, [_grant("alex", level, "direct", "future")], [], "none"),
            (people, [_grant("alex", level, "group", "future")], [], "none"),
            (people, [_grant("alex", level, "space", "future")], [], "none"),
            (people, [], ["alex"], "none"),
            (people, [_grant("alex", "read", "direct", "future")], [], "channel"),
            ({"alex": _principal("user", owner=True)}, [], [], "none"),
        ]
        for principals, grants, members, archived in ways:
            facts = _facts(
                principals,
                archived=archived,
                members=members,
                grants=grants,
                extra_channels=True,
            )
            yield DECISION, _decision(action, "alex", resources.channel(CHANNEL), facts)


_RUN_ACTORS: dict[str, tuple[str, str, bool]] = {
    "run agent": ("lotse", "agent", False),
    "other agent": ("texter", "agent", False),
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "app": ("importer", "app", False),
}
_RUN_ACTIONS = ("run.context.read", "provider.attempt", "run.content.write", "run.privacy.read")


def _run_actions(g: Generator) -> Iterator[Record]:
    """run.context.read and the run privacy actions: actor, status, run state, access."""
    states = (*g.enum("state", RUN_STATES), "no such run")
    for action, actor_type, status, state, access in itertools.product(
        _RUN_ACTIONS, _RUN_ACTORS, g.statuses, states, ("none", "read")
    ):
        actor, kind, owner = _RUN_ACTORS[actor_type]
        principals = {actor: _principal(kind, status, owner=owner)}
        if actor != "lotse":
            principals["lotse"] = _principal("agent")
        facts = _facts(
            principals,
            grants=_grants(actor, ("read", "direct", "never")) if access == "read" else [],
        )
        resource: Resource = (
            {"kind": "run", "id": RUN}
            if state == "no such run"
            else resources.run(RUN, agent_id="lotse", channel_id=CHANNEL, state=state)
        )
        yield _record(
            DECISION,
            _decision(action, actor, resource, facts),
            action,
            actor=actor_type,
            status=status,
            run=state,
            access=access,
        )


def _run_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The run's agent on its live run; another agent and a person who read the channel."""
    for action in _RUN_ACTIONS:
        for actor, kind in (("lotse", "agent"), ("texter", "agent"), ("alex", "user")):
            principals = {actor: _principal(kind), "lotse": _principal("agent")}
            facts = _facts(
                principals,
                grants=[_grant(actor, "read", "direct", "future")] if actor != "lotse" else [],
                extra_channels=True,
            )
            resource = resources.run(RUN, agent_id="lotse", channel_id=CHANNEL, state="running")
            yield DECISION, _decision(action, actor, resource, facts)


# Actions no family of its own generates (the others are checked against
# vocabulary["action"] in _instance_actions).
_UNKNOWN_ACTIONS = ("admin.everything", "message.delete")


def _instance_actors(
    g: Generator,
) -> Iterator[tuple[str, str, str, str, dict[str, PrincipalFacts]]]:
    """(actor type, status, permission, actor id, principals) for instance-wide questions.

    Every principal kind of :data:`_ACTORS` is generated with and without each
    permission the authorization rules compare, so every kind holds them once.
    """
    held = ("none", *g.permissions)
    for actor_type, status, permission in itertools.product(_ACTORS, g.statuses, held):
        actor, kind, owner = _ACTORS[actor_type]
        permissions = [] if permission == "none" else [permission]
        principal = _principal(kind, status, owner=owner, permissions=permissions)
        yield actor_type, status, permission, actor, {actor: principal}
    yield "unknown", "-", "-", "nobody", {}


def _instance_action_names(g: Generator) -> list[str]:
    """Every action the policies name that no other family generates, plus unknown ones."""
    others = {
        *_CHANNEL_ACTIONS,
        *_RUN_ACTIONS,
        *_RUNNER_ACTIONS,
        _HOLDERS_QUERY,
        _PROVISION,
    }
    named = sorted(g.vocabulary.rego.get("action", ()))
    return [action for action in named if action not in others] + list(_UNKNOWN_ACTIONS)


def _instance_actions(g: Generator) -> Iterator[Record]:
    """admin.*, explain, health, session_context.resolve and unknown actions."""
    for action in _instance_action_names(g):
        for actor_type, status, permission, actor, principals in _instance_actors(g):
            yield _record(
                DECISION,
                _decision(action, actor, resources.instance(), _facts(principals)),
                action,
                actor=actor_type,
                status=status,
                permission=permission,
            )


def _instance_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Per instance-wide action: an active owner, and what another action's rule wants.

    The second pivot is the trigger-holder query's allowed case (an app holding every
    compared permission, on a known channel) asked for this action: a rule that
    forgets to check its action shows there.
    """
    for action in _instance_action_names(g):
        principals = {"robin": _principal("user", owner=True)}
        yield DECISION, _decision(action, "robin", resources.instance(), _facts(principals))
        app = {"importer": _principal("app", permissions=g.permissions)}
        facts = _facts(app, extra_channels=True)
        yield DECISION, _decision(action, "importer", resources.channel(CHANNEL), facts)


_HOLDERS_QUERY = "authz.trigger_holders.query"


def _trigger_holders_query(g: Generator) -> Iterator[Record]:
    """authz.trigger_holders.query: who may ask, on a known or an unknown channel."""
    for channel in ("known", "unknown"):
        for actor_type, status, permission, actor, principals in _instance_actors(g):
            target = CHANNEL if channel == "known" else "nowhere"
            yield _record(
                DECISION,
                _decision(_HOLDERS_QUERY, actor, resources.channel(target), _facts(principals)),
                _HOLDERS_QUERY,
                actor=actor_type,
                status=status,
                permission=permission,
                channel=channel,
            )


def _trigger_holders_query_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The owner and an app with every compared permission, on the known channel."""
    for actor, principal in (
        ("robin", _principal("user", owner=True)),
        ("importer", _principal("app", permissions=g.permissions)),
    ):
        facts = _facts({actor: principal}, extra_channels=True)
        yield DECISION, _decision(_HOLDERS_QUERY, actor, resources.channel(CHANNEL), facts)


_PROVISION = "agent.workspace.provision"


def _workspace_provision(g: Generator) -> Iterator[Record]:
    """agent.workspace.provision: who provisions for which agent."""
    targets = ("own agent", "agent of another person", "agent without owner", "a person", "unknown")
    for actor_type, status, target, agent_status in itertools.product(
        _ACTORS, g.statuses, targets, ("active", "disabled")
    ):
        if target in ("a person", "unknown") and agent_status == "disabled":
            continue
        actor, kind, owner = _ACTORS[actor_type]
        principals = {actor: _principal(kind, status, owner=owner)}
        target_id = "texter"
        if target == "a person":
            target_id = "sam"
            principals["sam"] = _principal("user")
        elif target != "unknown":
            principals.setdefault(target_id, _principal("agent", agent_status))
        owner_id = {"own agent": actor, "agent of another person": "sam"}.get(target)
        yield _record(
            DECISION,
            _decision(
                _PROVISION,
                actor,
                resources.agent(target_id, owner_id=owner_id),
                _facts(principals),
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
        ("alex", _principal("user"), "alex"),
        ("robin", _principal("user", owner=True), "sam"),
    ):
        principals = {actor: principal, "texter": _principal("agent"), "sam": _principal("user")}
        resource = resources.agent("texter", owner_id=owner_id)
        yield DECISION, _decision(_PROVISION, actor, resource, _facts(principals))


_RUNNER_ACTIONS = (
    "runner.enroll",
    "runner.session.bind",
    "runner.session.reload",
    "runner.session.stop",
    "runner.comms.relay",
    "runner.session.run.bind",
    "runner.session.run.unbind",
)
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
        _RUNNER_ACTIONS, ("enrolled runner", "runner never enrolled", "person"), bindings
    ):
        holder, state, agent = binding
        actor = "alex" if caller == "person" else RUNNER
        principals: dict[str, PrincipalFacts] = {}
        if caller == "person":
            principals["alex"] = _principal("user")
        facts = _facts(principals)
        if caller != "person":
            facts["runners"] = {
                RUNNER: {"enrolled": caller == "enrolled runner", "enrollment_epoch": 3}
            }
        resource: Resource = resources.no_binding()
        agent_id = "sam" if agent == "a person" else "lotse"
        if holder != "none":
            principals[agent_id] = (
                _principal("user")
                if agent == "a person"
                else _principal("agent", "disabled" if agent == "disabled agent" else "active")
            )
            resource = resources.binding(
                runner_id=OTHER_RUNNER if holder == "other runner" else RUNNER,
                enrollment_epoch=2 if holder == "stale epoch" else 3,
                state=state,
                agent_id=agent_id,
            )
        dimensions = {"caller": caller, "binding": holder, "state": state, "agent": agent}
        if action not in (_RELAY, _RUN_BIND):
            yield _record(DECISION, _decision(action, actor, resource, facts), action, **dimensions)
            continue
        for run_state, owner, live in runs:
            if holder == "none" and live is not None:
                continue  # the service sends no run with a binding it did not find
            request = _decision(action, actor, resource, facts)
            if live is not None:
                run = _bound_run(live, agent_id=_RUN_OWNERS[owner] or agent_id)
                if action == _RELAY:
                    request["acting_for"] = {"run": run, "requester": "alex"}
                else:
                    request["resource"] = {**resource, "run": run}
            yield _record(
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
    for action, state in itertools.product(_RUNNER_ACTIONS, ("bound", "provisioned")):
        facts = _facts({"lotse": _principal("agent")})
        facts["runners"] = {
            RUNNER: {"enrolled": True, "enrollment_epoch": 3},
            OTHER_RUNNER: {"enrolled": True, "enrollment_epoch": 3},
        }
        run = _bound_run("running") if action == _RUN_BIND else None
        resource = resources.binding(
            runner_id=RUNNER, enrollment_epoch=3, state=state, agent_id="lotse", run=run
        )
        request = _decision(action, RUNNER, resource, facts)
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
    return tuple(dict.fromkeys([*_CHANNEL_ACTIONS, *sorted(g.requirements)]))


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
        principals = {"lotse": _principal("agent"), _REQUESTER: _principal("user")}
        grants = _grants("lotse", (agent_grant, "direct", "never")) + _grants(
            _REQUESTER, (requester_grant, "direct", "never")
        )
        request = _decision(
            action, "lotse", resources.channel(CHANNEL), _facts(principals, grants=grants)
        )
        if run != "no run bound":
            request["acting_for"] = _acting_for(run)
        yield _record(
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
        agent = _principal("agent")
        if attribute != "absent":
            agent["acting_for"] = attribute
        facts = _facts(
            {"lotse": agent, _REQUESTER: _principal("user")},
            members=[_REQUESTER],
            grants=_grants("lotse", (agent_grant, "direct", "never")),
        )
        request = _decision(action, "lotse", resources.channel(CHANNEL), facts)
        state = runs[run]
        if state is not None:
            request["acting_for"] = _acting_for(state)
        yield _record(
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
        agent_grant = _grant("lotse", level, "direct", "future")
        ways: list[tuple[PrincipalFacts, list[GrantFacts], list[str]]] = [
            (_principal("user"), [_grant(_REQUESTER, level, "direct", "future")], []),
            (
                _principal("user", groups=[GROUP]),
                [_grant(_REQUESTER, level, "group", "future")],
                [],
            ),
            (_principal("user"), [_grant(_REQUESTER, level, "space", "future")], []),
            (_principal("user"), [], [_REQUESTER]),
            (_principal("user", owner=True), [], []),
        ]
        for requester, grants, members in ways:
            facts = _facts(
                {"lotse": _principal("agent"), _REQUESTER: requester},
                members=members,
                grants=[agent_grant, *grants],
                extra_channels=True,
            )
            request = _decision(action, "lotse", resources.channel(CHANNEL), facts)
            yield DECISION, {**request, "acting_for": _acting_for("running")}
        required = _principal("agent")
        required["acting_for"] = "required"
        facts = _facts(
            {"lotse": required, _REQUESTER: _principal("user")},
            grants=[agent_grant, _grant(_REQUESTER, level, "direct", "future")],
            extra_channels=True,
        )
        request = _decision(action, "lotse", resources.channel(CHANNEL), facts)
        yield DECISION, request
        yield DECISION, {**request, "acting_for": _acting_for("running")}
    for action in _relayed_actions(g):
        if action not in g.requirements:
            facts = _facts(
                {"lotse": _principal("agent"), _REQUESTER: _principal("user")},
                grants=[
                    _grant("lotse", "manage", "direct", "future"),
                    _grant(_REQUESTER, "manage", "direct", "future"),
                ],
                extra_channels=True,
            )
            request = _decision(action, "lotse", resources.channel(CHANNEL), facts)
            yield DECISION, {**request, "acting_for": _acting_for("running")}


def _acting_for_records(g: Generator) -> Iterator[Record]:
    yield from _acting_for_runs(g)
    yield from _required_agents(g)


# ---------------------------------------------------------------- run context


_AUTHORS: dict[str, tuple[str, str, bool]] = {
    "run agent": ("lotse", "agent", False),
    "other agent": ("texter", "agent", False),
    "triggering person": ("alex", "user", False),
    "other person": ("sam", "user", False),
    "owner": ("robin", "user", True),
    "app": ("importer", "app", False),
}


def _author_access(author: str, access: str) -> tuple[list[GrantFacts], bool, list[str]]:
    """(grants, member, groups) giving ``author`` the named access to the channel."""
    if access == "none":
        return [], False, []
    if access == "write (member)":
        return [], True, []
    if access == "trigger on the channel":
        return [_grant(author, "trigger", "direct", "never")], False, []
    if access == "trigger on the space":
        return [_grant(author, "trigger", "space", "never")], False, []
    if access == "expired trigger":
        return [_grant(author, "trigger", "direct", "past")], False, []
    return [_grant(author, "manage", "group", "future")], False, [GROUP]  # manage via group


_ACCESS_VALUES = (
    "none",
    "write (member)",
    "trigger on the channel",
    "trigger on the space",
    "expired trigger",
    "manage via group",
)


def _run_ref(*, parent: bool = True, triggered_by: str | None = "alex") -> RunRef:
    run: RunRef = {"id": RUN, "agent_id": "lotse", "channel_id": CHANNEL, "thread_id": "thread-run"}
    if triggered_by is not None:
        run["triggered_by"] = triggered_by
    if parent:
        run["parent"] = {"thread_id": "thread-main", "seq": 40}
    return run


def _classification(g: Generator) -> Iterator[Record]:
    """The classification table and trigger holders: one author per record."""
    origins = g.enum("origin", MESSAGE_ORIGINS)
    for author_type, origin, status, access, channel_kind, archived in itertools.product(
        _AUTHORS, origins, ("active", "disabled"), _ACCESS_VALUES, ("regular", "dm"), ("no", "yes")
    ):
        author, kind, owner = _AUTHORS[author_type]
        grants, member, groups = _author_access(author, access)
        principals = {author: _principal(kind, status, owner=owner, groups=groups)}
        principals.setdefault("lotse", _principal("agent"))
        facts = _facts(
            principals,
            channel_kind=channel_kind,
            archived="channel" if archived == "yes" else "none",
            members=[author] if member else [],
            grants=grants,
        )
        request: RunContextInput = {
            "actor": "lotse",
            "run": _run_ref(),
            "threads": [{"id": "thread-run", "channel_id": CHANNEL, "seqs": [1, 2]}],
            "authors": [{"id": author, "origin": origin}],
            "facts": facts,
        }
        yield _record(
            RUN_CONTEXT,
            request,
            "run context: role and trust",
            author=author_type,
            origin=origin,
            status=status,
            access=access,
            channel=channel_kind,
            archived=archived,
        )


def _classification_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Each row of the classification table met: one author per pivot."""
    authors: tuple[tuple[str, str, list[GrantFacts], list[str]], ...] = (
        ("alex", "human", [_grant("alex", "trigger", "direct", "future")], []),
        ("sam", "human", [_grant("sam", "trigger", "space", "future")], []),
        ("sam", "human", [_grant("sam", "manage", "group", "future")], [GROUP]),
        ("robin", "human", [], []),
        ("lotse", "agent", [], []),
        ("texter", "agent", [], []),
        ("importer", "app", [], []),
        ("importer", "import", [], []),
        ("alex", "system", [], []),
    )
    kinds = {"alex": "user", "sam": "user", "robin": "user", "lotse": "agent"}
    for author, origin, grants, groups in authors:
        principals = {
            author: _principal(
                kinds.get(author, "agent" if author == "texter" else "app"),
                owner=author == "robin",
                groups=groups,
            ),
            "lotse": _principal("agent"),
        }
        request: RunContextInput = {
            "actor": "lotse",
            "run": _run_ref(),
            "threads": [{"id": "thread-run", "channel_id": CHANNEL, "seqs": [1, 2]}],
            "authors": [{"id": author, "origin": origin}],
            "facts": _facts(principals, grants=grants, extra_channels=True),
        }
        yield RUN_CONTEXT, request


_THREADS: dict[str, CandidateThread] = {
    "the run's thread": {"id": "thread-run", "channel_id": CHANNEL, "seqs": [1, 2, 3]},
    "main thread up to the parent": {"id": "thread-main", "channel_id": CHANNEL, "seqs": [38, 40]},
    "main thread past the parent": {
        "id": "thread-main",
        "channel_id": CHANNEL,
        "seqs": [39, 40, 41],
    },
    "another thread": {"id": "thread-other", "channel_id": CHANNEL, "seqs": [5, 6]},
    "a thread moved away": {"id": "thread-moved", "channel_id": OTHER_CHANNEL, "seqs": [7]},
}


def _readable(g: Generator) -> Iterator[Record]:
    """Filter mode of a context read: which candidate positions the actor reads."""
    actors = {
        "run agent": ("lotse", "active"),
        "disabled run agent": ("lotse", "disabled"),
        "other agent": ("texter", "active"),
    }
    for actor_type, access, thread, parent in itertools.product(
        actors, ("none", "read"), _THREADS, ("yes", "no")
    ):
        actor, status = actors[actor_type]
        principals = {actor: _principal("agent", status)}
        facts = _facts(
            principals,
            grants=_grants(actor, ("read", "direct", "never")) if access == "read" else [],
            extra_channels=True,
        )
        request: RunContextInput = {
            "actor": actor,
            "run": _run_ref(parent=parent == "yes"),
            "threads": [_THREADS[thread]],
            "authors": [],
            "facts": facts,
        }
        yield _record(
            RUN_CONTEXT,
            request,
            "run context: readable candidates",
            actor=actor_type,
            access=access,
            thread=thread,
            parent=parent,
        )


def _readable_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """The run's agent without a grant, and a reader, on each thread it reads.

    One thread per pivot: a context read never lists a thread twice, and a variant
    that renames a thread must not make two of them one.
    """
    readers: tuple[tuple[str, list[GrantFacts]], ...] = (
        ("lotse", []),
        ("texter", [_grant("texter", "read", "direct", "future")]),
    )
    threads = ("the run's thread", "main thread past the parent", "another thread")
    for (actor, grants), thread in itertools.product(readers, threads):
        if actor == "lotse" and thread == "another thread":
            continue  # the run gives its agent nothing there: no rule is met
        request: RunContextInput = {
            "actor": actor,
            "run": _run_ref(),
            "threads": [_THREADS[thread]],
            "authors": [],
            "facts": _facts({actor: _principal("agent")}, grants=grants, extra_channels=True),
        }
        yield RUN_CONTEXT, request


def _trigger_holders(g: Generator) -> Iterator[Record]:
    """runcontext/trigger_holders: one candidate over the level fact space."""
    for candidate_type, status, grant, member, channel_kind, archived in itertools.product(
        _ACTORS,
        ("active", "disabled"),
        _GRANTS,
        ("no", "yes"),
        ("regular", "dm"),
        ("none", "channel", "space"),
    ):
        candidate, kind, owner = _ACTORS[candidate_type]
        groups = [GROUP] if grant[1] == "group" else []
        request: TriggerHoldersInput = {
            "channel_id": CHANNEL,
            "candidates": [candidate],
            "facts": _facts(
                {candidate: _principal(kind, status, owner=owner, groups=groups)},
                channel_kind=channel_kind,
                archived=archived,
                members=[candidate] if member == "yes" else [],
                grants=_grants(candidate, grant),
            ),
        }
        yield _record(
            TRIGGER_HOLDERS,
            request,
            "trigger holders",
            candidate=candidate_type,
            status=status,
            grant=grant[0],
            via=grant[1],
            expiry=grant[2],
            member=member,
            channel=channel_kind,
            archived=archived,
        )


def _trigger_holders_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """A holder through each way to trigger (channel, space, group) and the owner."""
    ways: tuple[tuple[str, PrincipalFacts, list[GrantFacts]], ...] = (
        ("alex", _principal("user"), [_grant("alex", "trigger", "direct", "future")]),
        ("alex", _principal("user"), [_grant("alex", "trigger", "space", "future")]),
        (
            "alex",
            _principal("user", groups=[GROUP]),
            [_grant("alex", "trigger", "group", "future")],
        ),
        ("robin", _principal("user", owner=True), []),
    )
    for candidate, principal, grants in ways:
        request: TriggerHoldersInput = {
            "channel_id": CHANNEL,
            "candidates": [candidate],
            "facts": _facts({candidate: principal}, grants=grants, extra_channels=True),
        }
        yield TRIGGER_HOLDERS, request


# ---------------------------------------------------------------- session context


def _registry(policies: Path) -> dict[str, Any]:
    path = policies / "sessioncontext" / "registry" / "data.json"
    if not path.exists():
        return {"permissions": {}, "surfaces": {}, "tools": {}}
    registry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return registry


def _requirements(policies: Path) -> dict[str, str]:
    """The requester level per relayed action (``authz/actingfor/requirements``)."""
    path = policies / "authz" / "actingfor" / "requirements" / "data.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    levels = data.get("requester_levels") if isinstance(data, dict) else None
    if not isinstance(levels, dict):
        return {}
    return {str(action): str(level) for action, level in levels.items()}


def _intents(registry: dict[str, Any], surfaces: Sequence[str]) -> list[tuple[str, IntentRef]]:
    intents: list[tuple[str, IntentRef]] = []
    for name, tool in sorted(registry.get("tools", {}).items()):
        plane = tool.get("plane", "server") if isinstance(tool, dict) else "server"
        other = "client" if plane == "server" else "server"
        if name == "navigate_to":
            for surface in surfaces:
                intents.append(
                    (f"navigate_to {surface}", {"name": name, "plane": plane, "target": surface})
                )
        else:
            intents.append((name, {"name": name, "plane": plane}))
        intents.append((f"{name} on the {other} plane", {"name": name, "plane": other}))
    intents.append(("forged_admin_tool", {"name": "forged_admin_tool", "plane": "server"}))
    return intents


def _surfaces(registry: dict[str, Any]) -> list[str]:
    return [*sorted(registry.get("surfaces", {})), "unknown.surface"]


def _session_context(g: Generator) -> Iterator[Record]:
    """sessioncontext/resolve: caller, its permissions and one intent per record."""
    surfaces = _surfaces(g.registry)
    permissions = sorted(g.registry.get("permissions", {}))
    permission_sets: dict[str, list[str]] = {"none": []}
    for permission in permissions:
        permission_sets[permission] = [permission]
    permission_sets["all"] = permissions
    for caller, status, held, (intent_name, intent) in itertools.product(
        _ACTORS, g.statuses, permission_sets, _intents(g.registry, surfaces)
    ):
        actor, kind, owner = _ACTORS[caller]
        request: SessionContextInput = {
            "action": "session_context.resolve",
            "actor": actor,
            "resource": resources.instance(),
            "facts": _facts(
                {actor: _principal(kind, status, owner=owner, permissions=permission_sets[held])}
            ),
            "surfaces": surfaces,
            "intents": [intent],
        }
        yield _record(
            SESSION_CONTEXT,
            request,
            "session context: intents",
            caller=caller,
            status=status,
            permissions=held,
            intent=intent_name,
        )


def _session_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """A person holding every registry permission, proposing every intent at once."""
    surfaces = _surfaces(g.registry)
    permissions = sorted(g.registry.get("permissions", {}))
    request: SessionContextInput = {
        "action": "session_context.resolve",
        "actor": "alex",
        "resource": resources.instance(),
        "facts": _facts({"alex": _principal("user", permissions=permissions)}),
        "surfaces": surfaces,
        "intents": [intent for _, intent in _intents(g.registry, surfaces)],
    }
    yield SESSION_CONTEXT, request


# ---------------------------------------------------------------- privacy ceilings


def _stored() -> Iterator[tuple[str, CeilingFacts]]:
    for level, explicit in itertools.product(CEILING_LEVELS, (True, False)):
        yield f"{level}{' explicit' if explicit else ''}", {"level": level, "explicit": explicit}


def _run_ceilings() -> Iterator[tuple[str, str, PrivacyRunFacts]]:
    """(audit label, answer label, run facts): unreconciled, every stored pair, unreadable."""
    yield "unset", "unset", {}
    for (audit_name, audit), (answer_name, answer) in itertools.product(_stored(), _stored()):
        yield (
            audit_name,
            answer_name,
            {"ceilings": {"audit_content": audit, "background_answer": answer}},
        )
    yield (
        "unreadable (secret)",
        "unset",
        {"ceilings": {"audit_content": {"level": "secret", "explicit": True}}},
    )


def _policies(kind_names: Sequence[str]) -> Iterator[tuple[str, dict[str, str] | None]]:
    yield "no policy", None
    yield "inherits", {}
    for kind, level in itertools.product(kind_names, CEILING_LEVELS):
        yield f"{kind.replace('_', ' ')} {level}", {kind: level}


_PRIVACY_TABLES = ("audit content ceiling", "background answer ceiling")


def _privacy(g: Generator) -> Iterator[Record]:
    """privacy/attempt and privacy/write over stored ceilings, provider and task policies."""
    providers = [*_policies(CEILING_KINDS), ("unreadable (secret)", {"audit_content": "secret"})]
    tasks = [("no task", None), ("no policy", {}), *list(_policies(CEILING_KINDS))[2:]]
    for (run_audit, run_answer, run), (task_name, task_policy) in itertools.product(
        _run_ceilings(), tasks
    ):
        task: TaskFacts | None = None
        if task_name != "no task":
            task = {"key": "hr-review"}
            if task_policy:
                task["policy"] = task_policy
        write: PrivacyWriteInput = {"run": run}
        if task is not None:
            write["task"] = task
        yield _record(
            PRIVACY_WRITE,
            write,
            [f"privacy write: {name}" for name in _PRIVACY_TABLES],
            run_audit=run_audit,
            run_answer=run_answer,
            task=task_name,
        )
        for provider_name, provider_policy in providers:
            attempt: PrivacyAttemptInput = {"run": run, "provider": {"id": "openai-eu"}}
            if provider_policy is not None:
                attempt["provider"]["policy"] = provider_policy
            if task is not None:
                attempt["task"] = task
            yield _record(
                PRIVACY_ATTEMPT,
                attempt,
                [f"privacy attempt: {name}" for name in _PRIVACY_TABLES],
                run_audit=run_audit,
                run_answer=run_answer,
                provider=provider_name,
                task=task_name,
            )


def _privacy_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """Stored ceilings, a provider policy and a task policy for both kinds at once."""
    for explicit, level in ((True, "full"), (False, "metadata")):
        stored: PrivacyRunFacts = {
            "ceilings": {kind: {"level": level, "explicit": explicit} for kind in CEILING_KINDS}
        }
        task: TaskFacts = {"key": "hr-review", "policy": dict.fromkeys(CEILING_KINDS, "full")}
        write: PrivacyWriteInput = {"run": stored, "task": task}
        yield PRIVACY_WRITE, write
        attempt: PrivacyAttemptInput = {
            "run": stored,
            "provider": {"id": "openai-eu", "policy": dict.fromkeys(CEILING_KINDS, "metadata")},
            "task": task,
        }
        yield PRIVACY_ATTEMPT, attempt


# ---------------------------------------------------------------- seeded mixtures


def _mixtures(rng: random.Random, count: int) -> Iterator[Record]:
    """Inputs with several grants, memberships and candidates at once (not in tables)."""
    people = {"alex": ("user", False), "sam": ("user", False), "robin": ("user", True)}
    others = {"lotse": ("agent", False), "importer": ("app", False)}
    everyone = {**people, **others}
    for index in range(count):
        principals: dict[str, PrincipalFacts] = {}
        grants: list[GrantFacts] = []
        for pid, (kind, owner) in everyone.items():
            principals[pid] = _principal(
                kind,
                rng.choice(("active", "active", "active", "disabled", "pending")),
                owner=owner,
                groups=[GROUP] if rng.random() < 0.3 else [],
            )
            for _ in range(rng.randrange(3)):
                grants.append(
                    _grant(pid, rng.choice(LEVELS), rng.choice(VIAS), rng.choice(list(_EXPIRES)))
                )
        rng.shuffle(grants)
        members = sorted(pid for pid in everyone if rng.random() < 0.25)
        facts = _facts(
            principals,
            channel_kind=rng.choice(("regular", "regular", "dm")),
            archived=rng.choice(("none", "none", "none", "channel", "space")),
            members=members,
            grants=grants,
        )
        if index % 2 == 0:
            action = rng.choice(_CHANNEL_ACTIONS)
            actor = rng.choice(sorted(everyone))
            yield _record(
                DECISION, _decision(action, actor, resources.channel(CHANNEL), facts), None
            )
        else:
            candidates = sorted(rng.sample(sorted(everyone), rng.randrange(1, len(everyone) + 1)))
            holders: TriggerHoldersInput = {
                "channel_id": CHANNEL,
                "candidates": candidates,
                "facts": facts,
            }
            yield _record(TRIGGER_HOLDERS, holders, None)


FAMILIES = (
    Family("channel actions", _channel_actions, _channel_pivots),
    Family("run actions", _run_actions, _run_pivots),
    Family("instance actions", _instance_actions, _instance_pivots),
    Family("trigger holders query", _trigger_holders_query, _trigger_holders_query_pivots),
    Family("workspace provision", _workspace_provision, _workspace_pivots),
    Family("runner actions", _runner_actions, _runner_pivots),
    Family("acting for", _acting_for_records, _acting_for_pivots),
    Family("run context classes", _classification, _classification_pivots),
    Family("run context readable", _readable, _readable_pivots),
    Family("trigger holders", _trigger_holders, _trigger_holders_pivots),
    Family("session context", _session_context, _session_pivots),
    Family("privacy ceilings", _privacy, _privacy_pivots),
)


# ---------------------------------------------------------------- generation


@functools.lru_cache(maxsize=8)
def _rego_vocabulary(policies: tuple[Path, ...], binary: Path) -> dict[str, frozenset[str]]:
    merged: dict[str, set[str]] = {}
    for folder in policies:
        modules = parse_modules(folder, binary=binary)
        for field, values in vocabulary(modules, data_files(folder)).items():
            merged.setdefault(field, set()).update(values)
    return {field: frozenset(values) for field, values in merged.items()}


def generator(policies: Path, *, binary: Path = OPA, also: Sequence[Path] = ()) -> Generator:
    """The vocabulary and registry of ``policies`` (and of the folders in ``also``).

    Raises:
        ParseError: a module does not parse, or the OPA binary is missing.
    """
    folders = tuple(sorted({policies.resolve(), *(path.resolve() for path in also)}))
    rego = _rego_vocabulary(folders, binary)
    registry = _registry(policies)
    permissions = sorted(
        set(rego.get("permissions", ()))
        | set(rego.get("required_permission", ()))
        | set(registry.get("permissions", {}))
    )
    return Generator(
        vocabulary=Vocabulary(domains=DOMAINS, rego=rego, names={"permissions": permissions}),
        registry=registry,
        requirements=_requirements(policies),
    )


def generate(
    policies: Path,
    *,
    seed: int = DEFAULT_SEED,
    mixtures: int = 2000,
    variants_of_pivots: bool = True,
    binary: Path = OPA,
    also: Sequence[Path] = (),
) -> list[Record]:
    """Every generated record, in a fixed order (the same seed gives the same list).

    Args:
        policies: the policies folder whose rules (their compared values, read with
            ``binary``) and session-context registry the corpus is derived from.
        seed: seed of the mixtures.
        mixtures: how many seeded inputs with several grants and candidates to add.
        variants_of_pivots: add the single-fact variants of every family's pivots.
        binary: the OPA binary that parses the policies.
        also: further policy folders whose compared values count too (the base of a
            diff: a value only the base compares is generated as well).

    Raises:
        ParseError: a module does not parse, or the OPA binary is missing.
    """
    g = generator(policies, binary=binary, also=also)
    records: list[Record] = []
    for family in FAMILIES:
        records.extend(family.records(g))
    if variants_of_pivots:
        maker = Variants(g.vocabulary, WORLD)
        for family in FAMILIES:
            for entrypoint, pivot in family.pivots(g):
                records.append(_record(entrypoint, pivot, None))
                records.extend(
                    _record(entrypoint, variant, None) for variant in maker.of(entrypoint, pivot)
                )
    # Not for security: a seeded, reproducible choice of test inputs.
    records.extend(_mixtures(random.Random(seed), mixtures))  # noqa: S311
    return dedupe(records)
