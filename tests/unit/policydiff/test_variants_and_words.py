"""Single-fact variants from the typed contract; examples and tables a reviewer reads."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

import pytest

from policydiff.describe import phrase
from policydiff.doc import check_labels
from policydiff.generate import AROUND_NOW, NOW, WORLD, generator
from policydiff.mutants import Mutant
from policydiff.mutation_report import render
from policydiff.mutation_results import MutantResult, MutationReport, gate_failures
from policydiff.variants import MALFORMED_TIME, UNKNOWN_ID, Variants, Vocabulary
from tests.support.services import REPO_ROOT


class _Principal(TypedDict):
    kind: str
    status: str
    is_owner: bool
    # The attribute issue 21 will add: optional, compared with "required" in Rego.
    acting_for: NotRequired[str]


class _Grant(TypedDict):
    target: str
    expires_at: NotRequired[str]


class _Facts(TypedDict):
    now: str
    principals: dict[str, _Principal]
    grants: list[_Grant]


class _Input(TypedDict):
    actor: str
    facts: _Facts


_VOCABULARY = Vocabulary(
    domains={"status": (("active", "disabled"),), "kind": (("user", "agent"), ("regular", "dm"))},
    rego={"acting_for": frozenset({"required"}), "kind": frozenset({"bot"})},
    names={},
)
_PIVOT: dict[str, Any] = {
    "actor": "alex",
    "facts": {
        "now": NOW,
        "principals": {"alex": {"kind": "user", "status": "active", "is_owner": False}},
        "grants": [{"target": "general", "expires_at": "2026-12-31T12:00:00Z"}],
    },
}


def _variants() -> list[Any]:
    return list(Variants(_VOCABULARY, WORLD).of("toy", _PIVOT, schema=_Input))


def _alex(variant: Any) -> Any:
    return variant["facts"].get("principals", {}).get("alex")


def _grants(variant: Any) -> list[Any]:
    grants = variant["facts"].get("grants", [])
    return [grant for grant in grants if isinstance(grant, dict)]


def test_a_new_optional_field_of_the_contract_gets_the_values_the_rules_compare() -> None:
    acting = {_alex(v).get("acting_for") for v in _variants() if isinstance(_alex(v), dict)}
    assert {"required", "unknown"} <= acting


def test_enums_vary_within_their_list_plus_new_and_unknown_values() -> None:
    kinds = {_alex(v).get("kind") for v in _variants() if isinstance(_alex(v), dict)}
    assert kinds == {"user", "agent", "bot", "unknown", None}  # None: the key removed


def test_booleans_get_the_other_value_a_wrong_type_and_removal() -> None:
    owners = [
        _alex(v).get("is_owner", "missing") for v in _variants() if isinstance(_alex(v), dict)
    ]
    assert {True, "true", "missing"} <= set(owners)


def test_ids_get_their_siblings_and_times_their_boundaries() -> None:
    variants = _variants()
    assert {"sam", UNKNOWN_ID} <= {v["actor"] for v in variants}
    targets = {grant.get("target") for v in variants for grant in _grants(v)}
    assert {"billing", "campaigns"} <= targets
    expiries = {grant.get("expires_at") for v in variants for grant in _grants(v)}
    assert {NOW, *AROUND_NOW, MALFORMED_TIME} <= expiries
    assert "malformed" in [_alex(v) for v in variants]
    assert any(_alex(v) is None for v in variants)


def test_request_parts_keep_their_keys() -> None:
    assert all("actor" in v and "facts" in v for v in _variants())


# ---------------------------------------------------------------- words


_DISABLED_AGENT = {
    "actor": "lotse",
    "run": {"id": "run-1", "agent_id": "lotse", "channel_id": "general", "triggered_by": "alex"},
}


@pytest.mark.parametrize(
    ("entrypoint", "input", "path", "value", "words"),
    [
        (
            "runcontext/evaluate",
            _DISABLED_AGENT,
            ("facts", "principals", "lotse", "status"),
            "disabled",
            "run agent: disabled",
        ),
        (
            "runcontext/evaluate",
            _DISABLED_AGENT,
            ("facts", "principals", "alex", "status"),
            "active",
            "triggering person: active",
        ),
        (
            "authz/decision",
            {"actor": "alex", "resource": {"kind": "channel", "id": "general"}},
            ("facts", "channels", "general", "kind"),
            "dm",
            "channel: dm",
        ),
        (
            "authz/decision",
            {"actor": "alex", "resource": {"kind": "channel", "id": "general"}},
            ("facts", "grants", 0, "target", "id"),
            "billing",
            "grant: on other channel of the space",
        ),
        (
            "authz/decision",
            {"actor": "alex", "resource": {"kind": "channel", "id": "general"}},
            ("facts", "grants", 0, "expires_at"),
            NOW,
            "grant: expires exactly now",
        ),
        (
            "authz/decision",
            {"actor": "alex", "resource": {"kind": "channel", "id": "general"}},
            ("facts", "grants", 0, "expires_at"),
            AROUND_NOW[1],
            "grant: expires one second after now",
        ),
        (
            "authz/decision",
            {"actor": "runner-1", "resource": {"kind": "binding", "agent_id": "lotse"}},
            ("facts", "principals", "lotse", "status"),
            "disabled",
            "bound agent: disabled",
        ),
        (
            "authz/decision",
            {"actor": "runner-1", "resource": {"kind": "binding", "state": "bound"}},
            ("resource", "state"),
            "bound",
            "binding: bound",
        ),
        (
            "privacy/attempt",
            {},
            ("run", "ceilings", "audit_content", "explicit"),
            "true",
            'run: ceilings audit content explicit "true"',
        ),
    ],
)
def test_a_fact_is_said_in_the_words_of_the_tables(
    entrypoint: str, input: Any, path: tuple[str | int, ...], value: Any, words: str
) -> None:
    assert phrase(entrypoint, input, path, value) == words


def test_a_table_that_reads_two_ways_is_refused() -> None:
    with pytest.raises(ValueError, match="share a heading"):
        check_labels([({"status": "active"}, ("yes",))], ["allow", "status"])
    with pytest.raises(ValueError, match="reads two ways"):
        check_labels([({"actor": "run agent, disabled"}, ("yes",))], ["allow"])
    with pytest.raises(ValueError, match="reads two ways"):
        check_labels([({"actor": "not run agent"}, ("yes",))], ["allow"])
    check_labels([({"actor": "disabled run agent"}, ("yes",))], ["allow", "HTTP status"])


# ---------------------------------------------------------------- the gate


def _mutant(name: str) -> Mutant:
    return Mutant("a.rego", "r", "delete", name, "true", 0, 1, "true", 1)


def _report(*results: MutantResult) -> MutationReport:
    return MutationReport(policies="p", mutants=len(results), results=list(results), records=1)


def test_the_gate_wants_every_killed_mutant_reported_and_every_survivor_listed() -> None:
    report = _report(
        MutantResult(_mutant("fine"), killed=True, reported=True),
        MutantResult(_mutant("corpus gap"), killed=True, failed_test="t.test_x"),
        MutantResult(_mutant("test gap"), reported=True, change="authz/decision a k: x"),
        MutantResult(_mutant("survivor")),
        MutantResult(_mutant("listed"), equivalent="no input tells them apart"),
        MutantResult(_mutant("pinned"), killed=True, equivalent="a test pins the constant"),
        MutantResult(_mutant("wrongly listed"), killed=True, reported=True, equivalent="x"),
        MutantResult(_mutant("invalid"), invalid="rego_compile_error"),
    )

    failures = gate_failures(report)

    assert [line.split(": ", 1)[0] for line in failures] == [
        "killed by the tests but not reported by the diff",
        "reported by the diff but not killed by the tests",
        "neither killed nor reported, not listed as equivalent",
        "listed as equivalent but reported by the diff",
    ]
    assert report.figures == {
        "mutants run": 8,
        "invalid (do not compile)": 1,
        "valid": 7,
        "killed by the tests": 4,
        "reported by the diff": 3,
        "killed but not reported (corpus gap)": 1,
        "reported but not killed (test gap)": 1,
        "neither": 2,
        "neither, listed as equivalent": 1,
        "killed, no decision changes (listed)": 1,
    }
    text = render(report, "table")
    assert "gate: FAILED" in text
    assert "test t.test_x" in text
    assert "gate: passed" in render(
        _report(MutantResult(_mutant("ok"), killed=True, reported=True)), "markdown"
    )


def test_the_real_vocabulary_names_the_permissions_of_the_registry() -> None:
    names = generator(REPO_ROOT / "policies").vocabulary.names["permissions"]
    assert "matters:read" in names
