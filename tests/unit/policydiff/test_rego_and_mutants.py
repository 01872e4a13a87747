"""Reading the policies through OPA's AST: vocabulary, dependencies, mutants and their ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.policy.gateway import ENTRYPOINTS
from policydiff.mutants import (
    EquivalentError,
    Mutant,
    enumerate_mutants,
    read_equivalents,
    sample,
)
from policydiff.rego import Module, parse_modules
from policydiff.rego_graph import dependents, entrypoint_packages, reachable
from policydiff.rego_vocabulary import vocabulary
from tests.support.services import REPO_ROOT

OPA = REPO_ROOT / ".bin" / "opa"

LEVELS = """package toy.levels

# METADATA
# title: Live states
live_states := {"queued", "running"}

grant_levels := {"read": 1, "write": 2}

level(grant) := grant_levels[grant.level]

is_active(facts, id) if facts.principals[id].status == "active"
"""

DECISION = """package toy

import data.toy.levels

default allow := false

allow if {
	input.resource.state in levels.live_states
	levels.is_active(input.facts, input.actor)
	input.facts.principals[input.actor].kind != "app"
	not _blocked
	levels.level(input.grant) >= 2
}

else := true if _trusted

_blocked if input.origin == "import"

_trusted if "inspect" in input.facts.principals[input.actor].permissions
"""


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def toy(tmp_path: Path) -> list[Module]:
    folder = _write(
        tmp_path / "policies", {"toy/levels/levels.rego": LEVELS, "toy/toy.rego": DECISION}
    )
    return parse_modules(folder, binary=OPA)


def test_the_vocabulary_is_every_value_a_rule_compares_a_field_with(toy: list[Module]) -> None:
    found = vocabulary(toy, [("toy/registry", {"tools": {"x": {"plane": "client", "note": "y"}}})])

    assert found["state"] == {"queued", "running"}  # `in levels.live_states`
    assert found["status"] == {"active"}  # ==
    assert found["kind"] == {"app"}  # !=
    assert found["origin"] == {"import"}
    assert found["permissions"] == {"inspect"}  # `"inspect" in ...permissions`
    assert found["level"] == {"read", "write"}  # grant_levels[grant.level]
    # Policy data counts only under keys the rules read as fields.
    assert "plane" not in found
    assert "note" not in found


def test_dependents_follow_imports_and_entrypoints_name_their_module(toy: list[Module]) -> None:
    readers = dependents(toy)

    assert readers["toy/levels/levels.rego"] == {"toy/levels/levels.rego", "toy/toy.rego"}
    assert readers["toy/toy.rego"] == {"toy/toy.rego"}
    assert entrypoint_packages(toy, ["toy/allow", "toy/nothing"]) == {"toy/allow": "toy/toy.rego"}


def _ids(mutants: list[Mutant]) -> set[str]:
    return {mutant.id for mutant in mutants}


def test_every_operator_finds_its_mutation_points(toy: list[Module]) -> None:
    ids = _ids(enumerate_mutants(toy, vocabulary(toy)))

    prefix = "toy/toy.rego allow: "
    assert (
        prefix + "relational: `levels.level(input.grant) >= 2` -> `levels.level(input.grant) > 2`"
        in ids
    )
    assert (
        prefix + "relational: `levels.level(input.grant) >= 2` -> `levels.level(input.grant) < 2`"
        in ids
    )
    assert (
        prefix + 'relational: `input.facts.principals[input.actor].kind != "app"` -> '
        '`input.facts.principals[input.actor].kind == "app"`'
    ) in ids
    assert prefix + "delete: `not _blocked` -> `true`" in ids
    assert prefix + "negation: `not _blocked` -> `_blocked`" in ids
    assert (
        prefix + "name: `levels.is_active(input.facts, input.actor)` -> "
        "`levels.level(input.facts, input.actor)`"
    ) not in ids  # another arity: never swapped
    assert prefix + "name: `not _blocked` -> `not _trusted`" in ids
    assert (
        prefix + "literal: `levels.level(input.grant) >= 2` -> `levels.level(input.grant) >= 3`"
        in ids
    )
    literal = 'literal: `input.origin == "import"` -> `input.origin == "not-import"`'
    assert f"toy/toy.rego _blocked: {literal}" in ids
    # The lone variable of a one-line else body is edited, not the whole branch.
    assert "toy/toy.rego allow: delete: `_trusted` -> `true`" in ids
    assert "toy/levels/levels.rego live_states: literal: " in " ".join(ids)


def test_a_mutant_edits_exactly_its_span(toy: list[Module]) -> None:
    (decision,) = [module for module in toy if module.path == "toy/toy.rego"]
    (mutant,) = [
        m
        for m in enumerate_mutants(toy, vocabulary(toy))
        if m.id == "toy/toy.rego allow: negation: `not _blocked` -> `_blocked`"
    ]

    edited = mutant.apply(decision.source).decode()

    assert "\t_blocked\n" in edited
    assert edited.replace("\t_blocked\n", "\tnot _blocked\n") == decision.source.decode()


def test_ids_survive_an_unrelated_edit_above_them(tmp_path: Path) -> None:
    before = parse_modules(
        _write(tmp_path / "a", {"toy/levels/levels.rego": LEVELS, "toy/toy.rego": DECISION}),
        binary=OPA,
    )
    moved = DECISION.replace(
        "default allow := false\n", "default allow := false\n\n_unrelated := 1\n\n"
    )
    after = parse_modules(
        _write(tmp_path / "b", {"toy/levels/levels.rego": LEVELS, "toy/toy.rego": moved}),
        binary=OPA,
    )

    old = _ids(enumerate_mutants(before, vocabulary(before)))
    new = _ids(enumerate_mutants(after, vocabulary(after)))

    assert old <= new
    assert all("_unrelated" in mutant for mutant in new - old)


def test_the_sample_is_seeded_and_keyed_by_id(toy: list[Module]) -> None:
    mutants = enumerate_mutants(toy, vocabulary(toy))

    chosen = sample(mutants, 5, seed=3)

    assert len(chosen) == 5
    assert chosen == sample(mutants, 5, seed=3)
    assert _ids(chosen) != _ids(sample(mutants, 5, seed=4))
    # Dropping a mutant that was not chosen keeps the sample.
    rest = [mutant for mutant in mutants if mutant not in chosen]
    assert sample([m for m in mutants if m != rest[0]], 5, seed=3) == chosen


def test_the_equivalents_file_needs_an_id_and_a_reason_per_entry(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("- mutant: a\n  reason: b never differs\n")
    assert read_equivalents(good) == {"a": "b never differs"}
    assert read_equivalents(tmp_path / "absent.yaml") == {}
    for text in ("- mutant: a\n", "- reason: x\n", "- mutant: a\n  reason: ' '\n", "x: [\n"):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text)
        with pytest.raises(EquivalentError):
            read_equivalents(bad)
    twice = tmp_path / "twice.yaml"
    twice.write_text("- {mutant: a, reason: x}\n- {mutant: a, reason: y}\n")
    with pytest.raises(EquivalentError):
        read_equivalents(twice)


def test_the_reviewed_equivalents_file_parses() -> None:
    assert all(reason for reason in read_equivalents().values())


def test_rules_no_entry_point_reads_are_found(toy: list[Module], tmp_path: Path) -> None:
    read = reachable(toy, ["toy/allow"])

    assert {"toy.allow", "toy._blocked", "toy._trusted", "toy.levels.live_states"} <= read
    assert {"toy.levels.is_active", "toy.levels.level", "toy.levels.grant_levels"} <= read
    assert reachable(toy, ["toy/levels/is_active"]) == {"toy.levels.is_active"}


def test_the_real_policies_leave_only_lists_and_unused_objects_unread() -> None:
    modules = parse_modules(REPO_ROOT / "policies", binary=OPA)
    read = reachable(modules, ENTRYPOINTS)
    unread = {
        f"{module.package_name}.{rule.name}"
        for module in modules
        for rule in module.rules()
        if f"{module.package_name}.{rule.name}" not in read
    }
    assert unread == {
        "authz.actions",
        "authz.results.reasons",
        "authz.results.not_owner",
        "authz.results.unknown_action",
        "sessioncontext.reasons",
        "system.log.mask",
    }
