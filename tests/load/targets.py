"""The targets of the lean read path and of issue 22, computed from a run."""

from __future__ import annotations

from dataclasses import dataclass

from tests.load import operations
from tests.load.measure import Result
from tests.load.names import (
    BARE_DECISION,
    BARE_EVALUATE,
    INTERLEAVED_BARE,
    INTERLEAVED_CONTEXT,
    INTERLEAVED_LARGEST,
    INTERLEAVED_TRIVIAL,
    RIGHT_AFTER_LOAD,
)
from tests.load.tables import count_text, interleaved_ratios
from tests.load.world import REFERENCE, SIZES


@dataclass
class Target:
    """One target of the lean read path and whether this run meets it."""

    name: str
    measured: float
    limit: float
    at_least: bool = False
    unit: str = "x"

    @property
    def met(self) -> bool:
        """Whether the measured value is on the right side of the limit."""
        return self.measured >= self.limit if self.at_least else self.measured <= self.limit


def targets(results: list[Result], opa_by_c: dict[int, Result]) -> list[Target]:
    """The targets of the lean read path, computed from this run."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    reference, bare = ctx[(REFERENCE, 1)], opa_by_c[1]
    evaluate = next(r for r in results if r.name == BARE_EVALUATE and r.concurrency == 1)
    largest = max(SIZES)
    interleaved = {r.name: r for r in results if r.name in (INTERLEAVED_CONTEXT, INTERLEAVED_BARE)}
    found = [
        Target(
            f"getRunContext p50 / bare `authz/decision` p50, {REFERENCE} earlier messages, c=1",
            reference.percentile(50) / bare.percentile(50),
            8.0,
        ),
        Target(
            f"getRunContext p99 / bare `authz/decision` p99, {REFERENCE} earlier messages, c=1",
            reference.percentile(99) / bare.percentile(99),
            15.0,
        ),
        Target(
            "getRunContext p99 / bare `authz/decision` p50 (the stricter reading), c=1",
            reference.percentile(99) / bare.percentile(50),
            15.0,
        ),
        Target(
            f"getRunContext p50 at {largest:,} / p50 at {REFERENCE} earlier messages, c=1",
            ctx[(largest, 1)].percentile(50) / reference.percentile(50),
            1.1,
        ),
        Target(
            f"getRunContext req/s at c=8 / req/s at c=1, {REFERENCE} earlier messages",
            ctx[(REFERENCE, 8)].rps / reference.rps,
            1.6,
            at_least=True,
        ),
        Target(
            "bare `runcontext/evaluate` p50 / bare `authz/decision` p50, c=1",
            evaluate.percentile(50) / bare.percentile(50),
            2.0,
        ),
    ]
    if len(interleaved) == 2:
        found.insert(
            1,
            Target(
                f"the same, interleaved request by request ({REFERENCE} earlier messages, c=1)",
                interleaved[INTERLEAVED_CONTEXT].percentile(50)
                / interleaved[INTERLEAVED_BARE].percentile(50),
                8.0,
            ),
        )
    return found


def issue22_targets(
    results: list[Result],
    op_results: list[Result],
    op_costs: dict[str, tuple[float, float]],
    trivial_by_c: dict[int, Result],
    op_interleaved: dict[str, list[Result]],
) -> list[Target]:
    """The targets of issue 22, computed from this run (c=1 unless said otherwise)."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    by_name = {r.name: r for r in results}
    bare = next(r for r in results if r.name == BARE_DECISION and r.concurrency == 1)
    ops = {r.name: r for r in op_results if r.concurrency == 1}
    largest = max(SIZES)
    found = [
        Target(
            f"getRunContext p50 at {largest:,} / p50 at {REFERENCE} earlier messages "
            "(the product's own load, no extra ANALYZE)",
            ctx[(largest, 1)].percentile(50) / ctx[(REFERENCE, 1)].percentile(50),
            1.1,
        ),
        Target(
            f"{RIGHT_AFTER_LOAD}: p50 at {largest:,} / p50 at {REFERENCE} (later)",
            by_name[RIGHT_AFTER_LOAD].percentile(50) / ctx[(REFERENCE, 1)].percentile(50),
            1.1,
        ),
    ]
    if INTERLEAVED_LARGEST in by_name:
        found.append(
            Target(
                f"the same, interleaved request by request: {largest:,} / {REFERENCE} (p50)",
                by_name[INTERLEAVED_LARGEST].percentile(50)
                / by_name[INTERLEAVED_CONTEXT].percentile(50),
                1.1,
            )
        )
    if INTERLEAVED_CONTEXT in by_name:
        interleaved = by_name[INTERLEAVED_CONTEXT].percentile(50)
        found += [
            Target(
                f"interleaved getRunContext ({REFERENCE}) / `authz/decision` (p50)",
                interleaved / by_name[INTERLEAVED_BARE].percentile(50),
                6.0,
            ),
            Target(
                f"interleaved getRunContext ({REFERENCE}) / trivial policy on its own OPA (p50)",
                interleaved / by_name[INTERLEAVED_TRIVIAL].percentile(50),
                10.0,
            ),
        ]
    for name, limit in (
        ("list messages, first page", 4.0),
        ("list messages, deep before_message_id page", 4.0),
        ("post a message, new", 5.0),
        ("post a message, replayed", 5.0),
    ):
        if name in ops:
            found.append(
                Target(
                    f"{name} p50 / `authz/decision` p50 (one after the other)",
                    ops[name].percentile(50) / bare.percentile(50),
                    limit,
                )
            )
        ratios = interleaved_ratios(op_interleaved.get(name))
        if ratios is not None:
            found.append(Target(f"{name}, interleaved / `authz/decision` (p50)", ratios[0], limit))
    for name in operations.DENIED:
        if name in op_costs:
            opa_calls, statements = op_costs[name]
            found += [
                Target(f"{name}: OPA round trips", opa_calls, 1.0, unit=""),
                Target(f"{name}: SQL statements", statements, 2.0, unit=""),
            ]
    return found


def targets_table(found: list[Target]) -> str:
    """Each target with its measured value."""
    lines = ["| target | measured | limit | met |", "| --- | ---: | ---: | --- |"]
    for target in found:
        bound = ">=" if target.at_least else "<="
        measured = (
            f"{target.measured:.2f}{target.unit}" if target.unit else count_text(target.measured)
        )
        verdict = "yes"
        if not target.met:
            over = target.measured - target.limit
            verdict = f"NO ({over:+.2f}{target.unit} over)" if target.unit else f"NO ({over:+g})"
        lines.append(
            f"| {target.name} | {measured} | {bound} {target.limit:g}{target.unit} | {verdict} |"
        )
    return "\n".join(lines)
