"""Families of ``runcontext/evaluate``: classification of context elements, readable
threads and trigger holders."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from app.domain.facts import GrantFacts, PrincipalFacts
from app.policy.gateway import RUN_CONTEXT, TRIGGER_HOLDERS
from app.policy.inputs import (
    CandidateThread,
    RunContextInput,
    RunRef,
    TriggerHoldersInput,
)
from policydiff.corpus import Record
from policydiff.families.base import (
    ACTORS,
    CHANNEL,
    GROUP,
    OTHER_CHANNEL,
    RUN,
    Family,
    Generator,
    fact_bundle,
    generated_record,
    grant_facts,
    grants_of,
    level_cases,
    principal_facts,
)
from repositories.models import MESSAGE_ORIGINS

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
        return [grant_facts(author, "trigger", "direct", "never")], False, []
    if access == "trigger on the space":
        return [grant_facts(author, "trigger", "space", "never")], False, []
    if access == "expired trigger":
        return [grant_facts(author, "trigger", "direct", "past")], False, []
    return [grant_facts(author, "manage", "group", "future")], False, [GROUP]  # manage via group


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
        principals = {author: principal_facts(kind, status, owner=owner, groups=groups)}
        principals.setdefault("lotse", principal_facts("agent"))
        facts = fact_bundle(
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
        yield generated_record(
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
        ("alex", "human", [grant_facts("alex", "trigger", "direct", "future")], []),
        ("sam", "human", [grant_facts("sam", "trigger", "space", "future")], []),
        ("sam", "human", [grant_facts("sam", "manage", "group", "future")], [GROUP]),
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
            author: principal_facts(
                kinds.get(author, "agent" if author == "texter" else "app"),
                owner=author == "robin",
                groups=groups,
            ),
            "lotse": principal_facts("agent"),
        }
        request: RunContextInput = {
            "actor": "lotse",
            "run": _run_ref(),
            "threads": [{"id": "thread-run", "channel_id": CHANNEL, "seqs": [1, 2]}],
            "authors": [{"id": author, "origin": origin}],
            "facts": fact_bundle(principals, grants=grants, extra_channels=True),
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
        principals = {actor: principal_facts("agent", status)}
        facts = fact_bundle(
            principals,
            grants=grants_of(actor, ("read", "direct", "never")) if access == "read" else [],
            extra_channels=True,
        )
        request: RunContextInput = {
            "actor": actor,
            "run": _run_ref(parent=parent == "yes"),
            "threads": [_THREADS[thread]],
            "authors": [],
            "facts": facts,
        }
        yield generated_record(
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
        ("texter", [grant_facts("texter", "read", "direct", "future")]),
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
            "facts": fact_bundle(
                {actor: principal_facts("agent")}, grants=grants, extra_channels=True
            ),
        }
        yield RUN_CONTEXT, request


def _trigger_holders(g: Generator) -> Iterator[Record]:
    """runcontext/trigger_holders: one candidate over the level fact space."""
    for candidate_type, status, case in itertools.product(
        ACTORS, ("active", "disabled"), level_cases()
    ):
        candidate, kind, owner = ACTORS[candidate_type]
        request: TriggerHoldersInput = {
            "channel_id": CHANNEL,
            "candidates": [candidate],
            "facts": case.facts(candidate, kind, status, owner=owner),
        }
        yield generated_record(
            TRIGGER_HOLDERS,
            request,
            "trigger holders",
            candidate=candidate_type,
            status=status,
            **case.dimensions(),
        )


def _trigger_holders_pivots(g: Generator) -> Iterator[tuple[str, Any]]:
    """A holder through each way to trigger (channel, space, group) and the owner."""
    ways: tuple[tuple[str, PrincipalFacts, list[GrantFacts]], ...] = (
        ("alex", principal_facts("user"), [grant_facts("alex", "trigger", "direct", "future")]),
        ("alex", principal_facts("user"), [grant_facts("alex", "trigger", "space", "future")]),
        (
            "alex",
            principal_facts("user", groups=[GROUP]),
            [grant_facts("alex", "trigger", "group", "future")],
        ),
        ("robin", principal_facts("user", owner=True), []),
    )
    for candidate, principal, grants in ways:
        request: TriggerHoldersInput = {
            "channel_id": CHANNEL,
            "candidates": [candidate],
            "facts": fact_bundle({candidate: principal}, grants=grants, extra_channels=True),
        }
        yield TRIGGER_HOLDERS, request


# In the order of the generated corpus.
FAMILIES = (
    Family("run context classes", _classification, _classification_pivots),
    Family("run context readable", _readable, _readable_pivots),
    Family("trigger holders", _trigger_holders, _trigger_holders_pivots),
)
