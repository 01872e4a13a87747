"""Mutation testing with the real OPA: the categories, the gate and the issue's mutants."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from policydiff.corpus import Record, write_corpus
from policydiff.generate import generator
from policydiff.mutants import enumerate_mutants
from policydiff.mutation import Options, run_mutants
from policydiff.rego import parse_modules
from policydiff.rego_vocabulary import vocabulary
from policydiff.scratch import data_files
from tests.integration.policydiff.conftest import OPA, POLICIES, run_policy

pytestmark = pytest.mark.integration

TOY = """package authz

default decision := {"allow": false}

decision := {"allow": true} if {
	input.actor == "alex"
	input.facts.level >= 2
	input.facts.level >= 1
}
"""

TOY_TEST = """package authz_test

import data.authz

test_alex_at_level_2 if authz.decision.allow with input as {"actor": "alex", "facts": {"level": 2}}

test_sam_is_denied if not authz.decision.allow with input as {"actor": "sam", "facts": {"level": 3}}
"""

_ID = "authz/decision.rego decision: "


def _mutants(toy: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[str]:
    """``policy mutants`` on the toy policies and corpus, with ``args``."""
    policies, corpus = toy
    return run_policy("mutants", "--policies", str(policies), "--corpus", str(corpus), *args)


@pytest.fixture
def toy(tmp_path: Path) -> tuple[Path, Path]:
    """A one-rule policy folder with two tests, and a corpus of two decisions."""
    policies = tmp_path / "policies"
    (policies / "authz").mkdir(parents=True)
    (policies / "authz" / "decision.rego").write_text(TOY)
    (policies / "authz" / "decision_test.rego").write_text(TOY_TEST)
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(
        corpus,
        [
            Record("authz/decision", {"actor": "alex", "facts": {"level": level}})
            for level in (3, 1)
        ],
    )
    return policies, corpus


def _results(stdout: str) -> dict[str, str]:
    return {result["id"]: result["category"] for result in json.loads(stdout)["results"]}


def test_every_category_is_found_and_the_gate_says_why_it_fails(
    toy: tuple[Path, Path], tmp_path: Path
) -> None:
    equivalents = tmp_path / "equivalent.yaml"
    equivalents.write_text(
        f"- mutant: '{_ID}delete: `input.facts.level >= 1` -> `true`'\n"
        "  reason: level >= 2 implies level >= 1\n"
    )

    result = _mutants(
        toy, "--equivalents", str(equivalents), "--format", "json", "--gate", "--quiet"
    )

    assert result.returncode == 1, result.stderr
    categories = _results(result.stdout)
    assert categories[_ID + 'relational: `input.actor == "alex"` -> `input.actor != "alex"`'] == (
        "killed and reported"
    )
    # The tests hold level 2 exactly, the corpus does not: a corpus gap.
    assert categories[_ID + "relational: `input.facts.level >= 2` -> `input.facts.level > 2`"] == (
        "corpus gap"
    )
    # Nobody else than alex in the corpus: deleting the actor check is not reported.
    assert categories[_ID + 'delete: `input.actor == "alex"` -> `true`'] == "corpus gap"
    # No test holds alex below level 2, the corpus does: a test gap.
    assert categories[_ID + "delete: `input.facts.level >= 2` -> `true`"] == "test gap"
    assert categories[_ID + "delete: `input.facts.level >= 1` -> `true`"] == "equivalent"
    assert categories[_ID + "relational: `input.facts.level >= 1` -> `input.facts.level > 1`"] == (
        "survivor"
    )
    failures = json.loads(result.stdout)["gate_failures"]
    assert any(line.startswith("killed by the tests but not reported") for line in failures)
    assert any(line.startswith("reported by the diff but not killed") for line in failures)
    assert any(line.startswith("neither killed nor reported, not listed") for line in failures)


def test_the_gate_passes_when_every_mutant_is_killed_and_reported(toy: tuple[Path, Path]) -> None:
    result = _mutants(toy, "--only", 'input.actor == "alex"` -> `input.actor != "alex"', "--gate")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "gate: passed" in result.stdout
    assert "[1/1] killed and reported" in result.stderr


def test_a_listed_mutant_that_the_diff_reports_fails_the_gate(
    toy: tuple[Path, Path], tmp_path: Path
) -> None:
    equivalents = tmp_path / "equivalent.yaml"
    mutant = _ID + 'relational: `input.actor == "alex"` -> `input.actor != "alex"`'
    equivalents.write_text(f"- mutant: '{mutant}'\n  reason: wrongly believed equivalent\n")

    result = _mutants(toy, "--equivalents", str(equivalents), "--only", mutant, "--gate", "--quiet")

    assert result.returncode == 1
    assert "listed as equivalent but reported by the diff" in result.stdout


def test_what_cannot_run_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "x.rego").write_text("package x\n\nallow if {\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- mutant: only an id\n")
    for args in (("--policies", str(broken)), ("--equivalents", str(bad), "--list")):
        result = run_policy("mutants", *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stderr.startswith("policy mutants: ")


# The mutants of issue 20 that the diff called "No decision changed" before the
# corpus was made adequate: each is now killed by the tests and reported by the diff.
ISSUE_MUTANTS = (
    "authz/levels/levels.rego _target_matches: delete: `target.id == channel_id` -> `true`",
    "authz/levels/levels.rego _target_matches: delete: `target.id == channel.space_id` -> `true`",
    "authz/levels/levels.rego _unexpired: relational: "
    "`time.parse_rfc3339_ns(grant.expires_at) > time.parse_rfc3339_ns(now)` -> "
    "`time.parse_rfc3339_ns(grant.expires_at) >= time.parse_rfc3339_ns(now)`",
    'authz/inspect/inspect.rego _may_query_holders: delete: `actor.kind == "app"` -> `true`',
    "privacy/privacy.rego _readable: delete: `is_boolean(ceiling.explicit)` -> `true`",
    'runcontext/runcontext.rego _class: delete: `author.origin == "human"` -> `true`',
    'authz/runners/runners.rego _binding_usable: delete: `binding.kind == "binding"` -> `true`',
)


def test_the_mutants_of_the_issue_are_killed_and_reported(generated: list[Record]) -> None:
    modules = parse_modules(POLICIES, binary=OPA)
    mutants = enumerate_mutants(modules, vocabulary(modules, data_files(POLICIES)))
    chosen = [mutant for mutant in mutants if mutant.id in ISSUE_MUTANTS]
    assert len(chosen) == len(ISSUE_MUTANTS)

    report = run_mutants(
        chosen,
        modules=modules,
        policies=POLICIES,
        records=generated,
        binary=OPA,
        equivalents={},
        total=len(mutants),
        options=Options(jobs=2),
    )

    outcome: dict[str, Any] = {r.mutant.id: (r.category, r.change) for r in report.results}
    assert {category for category, _ in outcome.values()} == {"killed and reported"}, outcome


def test_the_generator_covers_a_value_the_base_compares_in_a_diff(tmp_path: Path) -> None:
    base = tmp_path / "policies"
    base.mkdir()
    rule = 'decision := {"allow": true} if input.facts.principals.x.status == "paused"'
    (base / "decision.rego").write_text(f"package authz\n\n{rule}\n")
    assert "paused" not in generator(POLICIES).statuses
    assert "paused" in generator(POLICIES, also=[base]).statuses
