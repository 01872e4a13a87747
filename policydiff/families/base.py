"""The world every family builds from: its readable ids, the fixed clock, the enum
domains of the schema, the :class:`Generator` and :class:`Family` types and the
helpers that build principals, fact bundles, grants and records."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin, get_type_hints

from app.domain.facts import FactBundle, GrantFacts, PrincipalFacts
from app.domain.privacy import CEILING_LEVELS
from app.policy import inputs
from app.policy.inputs import Resource
from policydiff.corpus import Record
from policydiff.variants import Vocabulary, World
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

# The fixed clock of every generated input; expiries lie around it.
NOW = "2026-12-01T12:00:00Z"
AROUND_NOW = ("2026-12-01T11:59:59Z", "2026-12-01T12:00:01Z")
EXPIRES = {"never": None, "future": "2026-12-31T12:00:00Z", "past": "2026-11-30T12:00:00Z"}

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
SIBLINGS: dict[str, tuple[str, ...]] = {
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
WORLD = World(siblings=SIBLINGS, now=NOW, around_now=AROUND_NOW)


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
        actions: each package's ``actions`` set (``authz.messages`` -> its actions),
            in source order: a family generates the actions of its packages, so a
            new action in a package is generated without a change here.
    """

    vocabulary: Vocabulary
    registry: dict[str, Any]
    requirements: dict[str, str]
    actions: dict[str, tuple[str, ...]]

    def actions_of(self, *packages: str) -> tuple[str, ...]:
        """The actions of ``packages`` (``authz.runs``), in that order."""
        return tuple(action for package in packages for action in self.actions.get(package, ()))

    @property
    def channel_actions(self) -> tuple[str, ...]:
        """The message actions (``message.list``, ``message.read``, ``message.post``)."""
        return self.actions_of("authz.messages")

    @property
    def run_actions(self) -> tuple[str, ...]:
        """The actions on one run: its context read and its privacy ceilings."""
        return self.actions_of("authz.runs", "authz.runprivacy")

    @property
    def runner_actions(self) -> tuple[str, ...]:
        """The runner actions (``runner.enroll``, ``runner.session.bind``, ...)."""
        return self.actions_of("authz.runners")

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


def principal_facts(
    kind: str,
    status: str = "active",
    *,
    owner: bool = False,
    groups: Sequence[str] = (),
    permissions: Sequence[str] = (),
) -> PrincipalFacts:
    """The facts of one principal (``is_owner``: an instance owner)."""
    return {
        "kind": kind,
        "status": status,
        "is_owner": owner,
        "groups": list(groups),
        "permissions": list(permissions),
    }


def fact_bundle(
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


def grant_facts(principal_id: str, level: str, via: str, expiry: str) -> GrantFacts:
    """A grant of ``level`` reaching the channel ``via`` direct, a group or the space."""
    subject_kind, subject_id = ("group", GROUP) if via == "group" else ("principal", principal_id)
    target_kind, target_id = ("space", SPACE) if via == "space" else ("channel", CHANNEL)
    grant: GrantFacts = {
        "subject": {"kind": subject_kind, "id": subject_id},
        "target": {"kind": target_kind, "id": target_id},
        "level": level,
    }
    expires = EXPIRES[expiry]
    if expires is not None:
        grant["expires_at"] = expires
    return grant


def grants_of(principal_id: str, grant: tuple[str, str, str]) -> list[GrantFacts]:
    """The grant of one :data:`GRANT_CHOICES` entry as a list (empty for ``none``)."""
    level, via, expiry = grant
    return [] if level == "none" else [grant_facts(principal_id, level, via, expiry)]


# A grant on the channel path: level, how it reaches the channel, expiry; "-" is none.
GRANT_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("none", "-", "-"),
    *itertools.product(LEVELS, VIAS, EXPIRES),
)


@dataclass(frozen=True)
class LevelCase:
    """One point of the level fact space of a principal on the channel ``general``.

    Attributes:
        grant: a :data:`GRANT_CHOICES` entry (level, how it reaches the channel, expiry).
        member: ``yes`` when the principal is a member of the channel.
        channel: the channel's kind (``regular`` or ``dm``).
        archived: ``none``, ``channel`` or ``space``.
    """

    grant: tuple[str, str, str]
    member: str
    channel: str
    archived: str

    def facts(self, principal_id: str, kind: str, status: str, *, owner: bool) -> FactBundle:
        """The fact bundle of ``principal_id`` alone, at this point."""
        groups = [GROUP] if self.grant[1] == "group" else []
        return fact_bundle(
            {principal_id: principal_facts(kind, status, owner=owner, groups=groups)},
            channel_kind=self.channel,
            archived=self.archived,
            members=[principal_id] if self.member == "yes" else [],
            grants=grants_of(principal_id, self.grant),
        )

    def dimensions(self) -> dict[str, str]:
        """The point's facts as the decision tables label them."""
        level, via, expiry = self.grant
        return {
            "grant": level,
            "via": via,
            "expiry": expiry,
            "member": self.member,
            "channel": self.channel,
            "archived": self.archived,
        }


def level_cases() -> list[LevelCase]:
    """Every point of the level fact space, in the order of the tables."""
    points = itertools.product(
        GRANT_CHOICES, ("no", "yes"), ("regular", "dm"), ("none", "channel", "space")
    )
    return [LevelCase(*point) for point in points]


def decision_input(
    action: str, actor: str, resource: Resource, facts: FactBundle
) -> dict[str, Any]:
    """An ``authz/decision`` input."""
    return {"action": action, "actor": actor, "resource": resource, "facts": facts}


def generated_record(
    entrypoint: str, input: Any, table: str | list[str] | None, **facts: Any
) -> Record:
    """A generated record; with a ``table``, labelled with it and its ``facts`` (dimensions)."""
    label = {"table": table, "facts": facts} if table is not None else None
    return Record(entrypoint=entrypoint, input=input, source="generated", label=label)


# The actor of each principal kind: id, kind and whether it is an instance owner.
ACTORS: dict[str, tuple[str, str, bool]] = {
    "person": ("alex", "user", False),
    "owner": ("robin", "user", True),
    "agent": ("lotse", "agent", False),
    "app": ("importer", "app", False),
}
