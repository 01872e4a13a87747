"""The generated corpus: the fact space of every action and entry point, enumerated.

Each *family* below builds the inputs of one kind of question from a few dimensions
(principal kind and status, grant level and how it reaches the channel, expiry,
membership, DM or regular, archive flags, run state, ...) and enumerates their
product, so a policy change that flips any combination shows up in the diff. The
dimensions are the facts the rules read (``docs/policy-input.md``); every record
carries them as its ``label``, which the decision tables (:mod:`policydiff.doc`) use.

Bounded: the product is kept in the tens of thousands (about 40,000 records) by
giving each family only the dimensions its rules read. A seeded part adds inputs with
several grants and candidates at once (the maximum of levels, several holders), drawn
with :class:`random.Random` from ``seed``: the same seed gives the same file.

The registry of the session-context resolution (surfaces and tools) is read from the
policies folder given, so a new surface or tool is generated as soon as it exists.

Ids are readable names (``alex``, ``general``) rather than uuids: the policies compare
ids only for equality, and reviewers read the examples.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.domain.privacy import CEILING_KINDS, CEILING_LEVELS
from app.policy import resources
from app.policy.gateway import (
    DECISION,
    PRIVACY_ATTEMPT,
    PRIVACY_WRITE,
    RUN_CONTEXT,
    SESSION_CONTEXT,
    TRIGGER_HOLDERS,
)
from app.policy.inputs import (
    CandidateThread,
    CeilingFacts,
    FactBundle,
    GrantFacts,
    IntentRef,
    PrincipalFacts,
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
from policydiff.corpus import Record

__all__ = ["DEFAULT_SEED", "NOW", "generate"]

DEFAULT_SEED = 11

# The fixed clock of every generated input; expiries lie around it.
NOW = "2026-12-01T12:00:00Z"
_EXPIRES = {"never": None, "future": "2026-12-31T12:00:00Z", "past": "2026-11-30T12:00:00Z"}

STATUSES = ("active", "pending", "disabled", "deleted")
LEVELS = ("read", "write", "trigger", "manage")
VIAS = ("direct", "group", "space")
RUN_STATES = ("queued", "running", "waiting_input", "succeeded", "failed", "cancelled")
ORIGINS = ("human", "agent", "app", "import", "system")

# Readable ids. People are Alex, Sam and Robin (the instance owner).
SPACE, OTHER_SPACE = "support", "marketing"
CHANNEL, OTHER_CHANNEL = "general", "campaigns"
GROUP = "team"
RUN, RUNNER, OTHER_RUNNER = "run-1", "runner-1", "runner-2"

# The actor of each principal kind: id, kind and whether it is an instance owner.
_ACTORS: dict[str, tuple[str, str, bool]] = {
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "agent": ("lotse", "agent", False),
    "app": ("importer", "app", False),
}

# A grant on the channel path: level, how it reaches the channel, expiry; "-" is none.
_GRANTS: tuple[tuple[str, str, str], ...] = (
    ("none", "-", "-"),
    *itertools.product(LEVELS, VIAS, _EXPIRES),
)


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
        facts["channels"][OTHER_CHANNEL] = {
            "kind": "regular",
            "archived": False,
            "space_id": OTHER_SPACE,
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


def _decision(action: str, actor: str, resource: Resource, facts: FactBundle) -> dict[str, Any]:
    return {"action": action, "actor": actor, "resource": resource, "facts": facts}


def _record(entrypoint: str, input: Any, table: str | list[str] | None, **facts: Any) -> Record:
    label = {"table": table, "facts": facts} if table is not None else None
    return Record(entrypoint=entrypoint, input=input, source="generated", label=label)


# ---------------------------------------------------------------- authz/decision


def _channel_actions() -> Iterator[Record]:
    """message.list, message.read, message.post over the whole level fact space."""
    dims = itertools.product(
        ("message.list", "message.read", "message.post"),
        _ACTORS,
        STATUSES,
        _GRANTS,
        ("no", "yes"),
        ("regular", "dm"),
        ("none", "channel", "space", "both"),
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


_RUN_ACTORS: dict[str, tuple[str, str, bool]] = {
    "run agent": ("lotse", "agent", False),
    "other agent": ("texter", "agent", False),
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "app": ("importer", "app", False),
}


def _run_actions() -> Iterator[Record]:
    """run.context.read and the run privacy actions: actor, status, run state, access."""
    actions = ("run.context.read", "provider.attempt", "run.content.write", "run.privacy.read")
    for action, actor_type, status, state, access in itertools.product(
        actions, _RUN_ACTORS, STATUSES, (*RUN_STATES, "unknown"), ("none", "read")
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
            if state == "unknown"
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


_INSTANCE_ACTORS: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {
    "person": ("alex", "user", False, ()),
    "owner": ("robin", "user", True, ()),
    "agent": ("lotse", "agent", False, ()),
    "app": ("importer", "app", False, ()),
    "app with authz:inspect": ("inspector", "app", False, ("authz:inspect",)),
}

_INSTANCE_ACTIONS = (
    "admin.grants.create",
    "admin.grants.delete",
    "admin.principals.update",
    "admin.spaces.update",
    "admin.channels.update",
    "admin.threads.move",
    "admin.runs.create",
    "admin.runs.update",
    "admin.followups.create",
    "admin.followups.update",
    "admin.sessions.set",
    "admin.messages.delete",
    "admin.provider_policies.set",
    "admin.task_policies.set",
    "authz.explain",
    "health.live",
    "health.ready",
    "session_context.resolve",
    # Not known to the policies: the default deny must stay.
    "admin.everything",
    "message.delete",
)


def _instance_actors() -> Iterator[tuple[str, str, str, dict[str, PrincipalFacts]]]:
    """(actor type, status, actor id, principals) for instance-wide questions."""
    for actor_type, status in itertools.product(_INSTANCE_ACTORS, STATUSES):
        actor, kind, owner, permissions = _INSTANCE_ACTORS[actor_type]
        yield (
            actor_type,
            status,
            actor,
            {actor: _principal(kind, status, owner=owner, permissions=permissions)},
        )
    yield "unknown", "-", "nobody", {}


def _instance_actions() -> Iterator[Record]:
    """admin.*, explain, health, session_context.resolve and unknown actions."""
    for action in _INSTANCE_ACTIONS:
        for actor_type, status, actor, principals in _instance_actors():
            yield _record(
                DECISION,
                _decision(action, actor, resources.instance(), _facts(principals)),
                action,
                actor=actor_type,
                status=status,
            )


def _trigger_holders_query() -> Iterator[Record]:
    """authz.trigger_holders.query: who may ask, on a known or an unknown channel."""
    action = "authz.trigger_holders.query"
    for channel in ("known", "unknown"):
        for actor_type, status, actor, principals in _instance_actors():
            target = CHANNEL if channel == "known" else "nowhere"
            yield _record(
                DECISION,
                _decision(action, actor, resources.channel(target), _facts(principals)),
                action,
                actor=actor_type,
                status=status,
                channel=channel,
            )


def _workspace_provision() -> Iterator[Record]:
    """agent.workspace.provision: who provisions for which agent."""
    action = "agent.workspace.provision"
    targets = ("own agent", "agent of another person", "agent without owner", "a person", "unknown")
    for actor_type, status, target, agent_status in itertools.product(
        _ACTORS, STATUSES, targets, ("active", "disabled")
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
                action, actor, resources.agent(target_id, owner_id=owner_id), _facts(principals)
            ),
            action,
            actor=actor_type,
            status=status,
            target=target,
            agent=agent_status if target not in ("a person", "unknown") else "-",
        )


def _runner_actions() -> Iterator[Record]:
    """runner.*: enrolment, binding ownership, epoch, state and the bound agent."""
    actions = (
        "runner.enroll",
        "runner.session.bind",
        "runner.session.reload",
        "runner.session.stop",
        "runner.comms.relay",
    )
    bindings = (
        ("none", "-", "-"),
        *itertools.product(
            ("own", "stale epoch", "other runner"),
            ("provisioned", "bound", "stopped"),
            ("active agent", "disabled agent", "a person"),
        ),
    )
    for action, caller, binding in itertools.product(
        actions, ("enrolled runner", "runner never enrolled", "person"), bindings
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
        if holder != "none":
            agent_id = "sam" if agent == "a person" else "lotse"
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
        yield _record(
            DECISION,
            _decision(action, actor, resource, facts),
            action,
            caller=caller,
            binding=holder,
            state=state,
            agent=agent,
        )


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
    if access == "trigger, expired":
        return [_grant(author, "trigger", "direct", "past")], False, []
    return [_grant(author, "manage", "group", "future")], False, [GROUP]  # manage via group


_ACCESS_VALUES = (
    "none",
    "write (member)",
    "trigger on the channel",
    "trigger on the space",
    "trigger, expired",
    "manage via group",
)


def _run_ref(*, parent: bool = True, triggered_by: str | None = "alex") -> RunRef:
    run: RunRef = {"id": RUN, "agent_id": "lotse", "channel_id": CHANNEL, "thread_id": "thread-run"}
    if triggered_by is not None:
        run["triggered_by"] = triggered_by
    if parent:
        run["parent"] = {"thread_id": "thread-main", "seq": 40}
    return run


def _classification() -> Iterator[Record]:
    """The classification table and trigger holders: one author per record."""
    for author_type, origin, status, access, channel_kind, archived in itertools.product(
        _AUTHORS, ORIGINS, ("active", "disabled"), _ACCESS_VALUES, ("regular", "dm"), ("no", "yes")
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


_THREADS: dict[str, CandidateThread] = {
    "the run's thread": {"id": "thread-run", "channel_id": CHANNEL, "seqs": [1, 2, 3]},
    "main thread up to the parent": {"id": "thread-main", "channel_id": CHANNEL, "seqs": [38, 40]},
    "main thread, also after the parent": {
        "id": "thread-main",
        "channel_id": CHANNEL,
        "seqs": [39, 40, 41],
    },
    "another thread": {"id": "thread-other", "channel_id": CHANNEL, "seqs": [5, 6]},
    "a thread moved away": {"id": "thread-moved", "channel_id": OTHER_CHANNEL, "seqs": [7]},
}


def _readable() -> Iterator[Record]:
    """Filter mode of a context read: which candidate positions the actor reads."""
    actors = {
        "run agent": ("lotse", "active"),
        "run agent, disabled": ("lotse", "disabled"),
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


def _trigger_holders() -> Iterator[Record]:
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


# ---------------------------------------------------------------- session context


def _registry(policies: Path) -> dict[str, Any]:
    path = policies / "sessioncontext" / "registry" / "data.json"
    if not path.exists():
        return {"permissions": {}, "surfaces": {}, "tools": {}}
    registry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return registry


def _session_context(policies: Path) -> Iterator[Record]:
    """sessioncontext/resolve: caller, its permissions and one intent per record."""
    registry = _registry(policies)
    surfaces = [*sorted(registry.get("surfaces", {})), "unknown.surface"]
    permissions = sorted(registry.get("permissions", {}))
    permission_sets: dict[str, list[str]] = {"none": []}
    for permission in permissions:
        permission_sets[permission] = [permission]
    permission_sets["all"] = permissions
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
    callers = {key: _INSTANCE_ACTORS[key] for key in ("person", "owner", "agent", "app")}
    for caller, status, held, (intent_name, intent) in itertools.product(
        callers, STATUSES, permission_sets, intents
    ):
        actor, kind, owner, _ = callers[caller]
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


def _privacy() -> Iterator[Record]:
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
            action = rng.choice(("message.list", "message.read", "message.post"))
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
    _channel_actions,
    _run_actions,
    _instance_actions,
    _trigger_holders_query,
    _workspace_provision,
    _runner_actions,
    _classification,
    _readable,
    _trigger_holders,
    _privacy,
)


def generate(policies: Path, *, seed: int = DEFAULT_SEED, mixtures: int = 2000) -> list[Record]:
    """Every generated record, in a fixed order (the same seed gives the same list).

    Args:
        policies: the policies folder whose session-context registry names the
            surfaces and tools to enumerate.
        seed: seed of the mixtures.
        mixtures: how many seeded inputs with several grants and candidates to add.
    """
    records: list[Record] = []
    for family in FAMILIES:
        records.extend(family())
    records.extend(_session_context(policies))
    # Not for security: a seeded, reproducible choice of test inputs.
    records.extend(_mixtures(random.Random(seed), mixtures))  # noqa: S311
    return records
