"""The outcome of a mutation run: each mutant's result and category, the report's
figures and the gate of ``make test`` (method in :mod:`policydiff.mutation`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policydiff.mutants import Mutant

__all__ = [
    "CATEGORIES",
    "MutantResult",
    "MutationReport",
    "describe",
    "gate_failures",
]

# The categories of a valid mutant, in report order.
CATEGORIES = (
    "killed and reported",
    "corpus gap",
    "test gap",
    "equivalent",
    "survivor",
)


@dataclass(frozen=True, slots=True)
class MutantResult:
    """What happened to one mutant.

    Attributes:
        mutant: the mutant.
        invalid: OPA's compile error when the mutant does not compile, else ``None``.
        killed: ``opa test`` fails on it.
        failed_test: the first failing test's name (when killed).
        reported: the diff shows a changed answer.
        change: the first change: ``entrypoint action kind: transition``.
        replayed: how many records were replayed before the answer was known.
        relevant: how many records the mutant could change.
        seconds: wall time spent on the mutant.
        equivalent: the reviewed reason when the mutant is listed as equivalent.
    """

    mutant: Mutant
    invalid: str | None = None
    killed: bool = False
    failed_test: str | None = None
    reported: bool = False
    change: str | None = None
    replayed: int = 0
    relevant: int = 0
    seconds: float = 0.0
    equivalent: str | None = None

    @property
    def category(self) -> str:
        """``invalid`` or one of :data:`CATEGORIES`.

        A listed mutant (:attr:`equivalent`) that the diff does not report is
        ``equivalent`` whether the tests kill it or not: no decision tells it apart,
        though a test may pin the value it changes (a constant, a closed list).
        """
        if self.invalid is not None:
            return "invalid"
        if self.killed and self.reported:
            return "killed and reported"
        if self.reported:
            return "test gap"
        if self.equivalent is not None:
            return "equivalent"
        return "corpus gap" if self.killed else "survivor"


@dataclass
class MutationReport:
    """The outcome of one mutation run.

    Attributes:
        policies: the policies folder mutated.
        mutants: how many mutants the policies have in all.
        unread: how many of them are in rules no entry point reads (not run: no
            answer of the service can change with them; their tests pin them).
        results: one result per mutant run, in enumeration order.
        records: corpus records replayed (after removing those the base cannot answer).
        sample: ``(count, seed)`` of a sampled run, ``None`` for a full run.
        stale: listed equivalent ids that match no mutant (full runs only).
        seconds: wall time of each phase.
    """

    policies: str
    mutants: int
    results: list[MutantResult]
    records: int
    unread: int = 0
    sample: tuple[int, int] | None = None
    stale: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def count(self, category: str) -> int:
        """How many results fall in ``category``."""
        return sum(result.category == category for result in self.results)

    @property
    def valid(self) -> list[MutantResult]:
        """The results of mutants that compile."""
        return [result for result in self.results if result.invalid is None]

    @property
    def figures(self) -> dict[str, int]:
        """The five figures of the issue, plus invalid and listed-equivalent counts."""
        valid = self.valid
        listed = [result for result in valid if result.category == "equivalent"]
        return {
            "mutants run": len(self.results),
            "invalid (do not compile)": self.count("invalid"),
            "valid": len(valid),
            "killed by the tests": sum(result.killed for result in valid),
            "reported by the diff": sum(result.reported for result in valid),
            "killed but not reported (corpus gap)": self.count("corpus gap"),
            "reported but not killed (test gap)": self.count("test gap"),
            "neither": sum(not r.killed and not r.reported for r in valid),
            "neither, listed as equivalent": sum(not result.killed for result in listed),
            "killed, no decision changes (listed)": sum(result.killed for result in listed),
        }


def gate_failures(report: MutationReport) -> list[str]:
    """Why the mutation gate fails, one line per mutant (empty: it passes)."""
    failures: list[str] = []
    for result in report.valid:
        mutant = result.mutant.id
        if result.equivalent is not None and result.reported:
            failures.append(f"listed as equivalent but reported by the diff: {mutant}")
        elif result.category == "corpus gap":
            failures.append(f"killed by the tests but not reported by the diff: {mutant}")
        elif result.category == "test gap":
            failures.append(f"reported by the diff but not killed by the tests: {mutant}")
        elif result.category == "survivor":
            failures.append(f"neither killed nor reported, not listed as equivalent: {mutant}")
    return failures


def describe(result: MutantResult) -> dict[str, Any]:
    """A result as JSON."""
    document: dict[str, Any] = {
        "id": result.mutant.id,
        "file": result.mutant.file,
        "line": result.mutant.row,
        "operator": result.mutant.operator,
        "category": result.category,
        "killed": result.killed,
        "reported": result.reported,
        "replayed": result.replayed,
        "relevant": result.relevant,
        "seconds": round(result.seconds, 3),
    }
    for key in ("invalid", "failed_test", "change", "equivalent"):
        value = getattr(result, key)
        if value is not None:
            document[key] = value
    return document
