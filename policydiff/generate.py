"""The generated corpus: every family's records, the variants of their pivots and seeded
mixtures, in a fixed order, with the vocabulary and actions read from the policies.

Why three layers: ADR 0017; families, actions and variants: docs/policy-review.md.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.domain.facts import GrantFacts, PrincipalFacts
from app.policy import resources
from app.policy.gateway import DECISION, TRIGGER_HOLDERS
from app.policy.inputs import TriggerHoldersInput
from policydiff.corpus import Record, dedupe
from policydiff.families import bound_runs, decision, privacy, run_context, session_context
from policydiff.families.base import (
    AROUND_NOW,
    CHANNEL,
    DOMAINS,
    EXPIRES,
    GROUP,
    LEVELS,
    NOW,
    ORIGINS,
    STATUSES,
    VIAS,
    WORLD,
    Family,
    Generator,
    decision_input,
    fact_bundle,
    generated_record,
    glossary,
    grant_facts,
    principal_facts,
)
from policydiff.families.bound_runs import ACTING_FOR_TABLE, REQUIRED_TABLE
from policydiff.families.session_context import read_registry, read_requirements
from policydiff.rego import parse_modules
from policydiff.rego_vocabulary import literal_sets, vocabulary
from policydiff.scratch import data_files
from policydiff.variants import Variants, Vocabulary
from repositories.models import RUN_STATES

__all__ = [
    "ACTING_FOR_TABLE",
    "AROUND_NOW",
    "DEFAULT_SEED",
    "FAMILIES",
    "LEVELS",
    "NOW",
    "ORIGINS",
    "REQUIRED_TABLE",
    "RUN_STATES",
    "STATUSES",
    "WORLD",
    "Family",
    "Generator",
    "generate",
    "generator",
    "glossary",
]

DEFAULT_SEED = 11
OPA = Path(__file__).resolve().parents[1] / ".bin" / "opa"

# ---------------------------------------------------------------- seeded mixtures


def _mixtures(rng: random.Random, count: int, actions: Sequence[str]) -> Iterator[Record]:
    """Inputs with several grants, memberships and candidates at once (not in tables);
    the decisions ask one of the channel ``actions`` (none without them)."""
    people = {"alex": ("user", False), "sam": ("user", False), "robin": ("user", True)}
    others = {"lotse": ("agent", False), "importer": ("app", False)}
    everyone = {**people, **others}
    for index in range(count):
        principals: dict[str, PrincipalFacts] = {}
        grants: list[GrantFacts] = []
        for pid, (kind, owner) in everyone.items():
            principals[pid] = principal_facts(
                kind,
                rng.choice(("active", "active", "active", "disabled", "pending")),
                owner=owner,
                groups=[GROUP] if rng.random() < 0.3 else [],
            )
            for _ in range(rng.randrange(3)):
                grants.append(
                    grant_facts(
                        pid, rng.choice(LEVELS), rng.choice(VIAS), rng.choice(list(EXPIRES))
                    )
                )
        rng.shuffle(grants)
        members = sorted(pid for pid in everyone if rng.random() < 0.25)
        facts = fact_bundle(
            principals,
            channel_kind=rng.choice(("regular", "regular", "dm")),
            archived=rng.choice(("none", "none", "none", "channel", "space")),
            members=members,
            grants=grants,
        )
        if index % 2 == 0:
            if not actions:
                continue  # policies without message actions: no decision to ask
            action = rng.choice(actions)
            actor = rng.choice(sorted(everyone))
            yield generated_record(
                DECISION, decision_input(action, actor, resources.channel(CHANNEL), facts), None
            )
        else:
            candidates = sorted(rng.sample(sorted(everyone), rng.randrange(1, len(everyone) + 1)))
            holders: TriggerHoldersInput = {
                "channel_id": CHANNEL,
                "candidates": candidates,
                "facts": facts,
            }
            yield generated_record(TRIGGER_HOLDERS, holders, None)


FAMILIES = (
    *decision.FAMILIES,
    *bound_runs.FAMILIES,
    *run_context.FAMILIES,
    *session_context.FAMILIES,
    *privacy.FAMILIES,
)


# ---------------------------------------------------------------- generation


@dataclass(frozen=True)
class _Read:
    """What the generator reads from the parsed policies of one or more folders."""

    vocabulary: dict[str, frozenset[str]]
    actions: dict[str, tuple[str, ...]]


@functools.lru_cache(maxsize=8)
def _read_policies(policies: tuple[Path, ...], binary: Path) -> _Read:
    """The compared values and each package's ``actions`` of every folder, merged.

    An action only one folder names (the base of a diff) is generated too, after
    the actions of the folders before it.
    """
    merged: dict[str, set[str]] = {}
    actions: dict[str, dict[str, None]] = {}
    for folder in policies:
        modules = parse_modules(folder, binary=binary)
        for field, values in vocabulary(modules, data_files(folder)).items():
            merged.setdefault(field, set()).update(values)
        for package, names in literal_sets(modules, "actions").items():
            actions.setdefault(package, {}).update(dict.fromkeys(names))
    return _Read(
        vocabulary={field: frozenset(values) for field, values in merged.items()},
        actions={package: tuple(names) for package, names in actions.items()},
    )


def generator(policies: Path, *, binary: Path = OPA, also: Sequence[Path] = ()) -> Generator:
    """The vocabulary and registry of ``policies`` (and of the folders in ``also``).

    Raises:
        ParseError: a module does not parse, or the OPA binary is missing.
    """
    folders = tuple(sorted({policies.resolve(), *(path.resolve() for path in also)}))
    read = _read_policies(folders, binary)
    rego = read.vocabulary
    registry = read_registry(policies)
    permissions = sorted(
        set(rego.get("permissions", ()))
        | set(rego.get("required_permission", ()))
        | set(registry.get("permissions", {}))
    )
    return Generator(
        vocabulary=Vocabulary(domains=DOMAINS, rego=rego, names={"permissions": permissions}),
        registry=registry,
        requirements=read_requirements(policies),
        actions=read.actions,
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
                records.append(generated_record(entrypoint, pivot, None))
                records.extend(
                    generated_record(entrypoint, variant, None)
                    for variant in maker.of(entrypoint, pivot)
                )
    # Not for security: a seeded, reproducible choice of test inputs.
    records.extend(_mixtures(random.Random(seed), mixtures, g.channel_actions))  # noqa: S311
    return dedupe(records)
