"""Render a :class:`~policydiff.mutation.MutationReport` as text, Markdown or JSON.

Every format gives the figures (the five categories of a mutation report, plus the
invalid and listed-equivalent counts), then the mutants a person has to act on:
corpus gaps, test gaps and unlisted survivors, each with its stable id (the line an
equivalent-mutants entry names) and the evidence (the first failing test, the first
changed answer).
"""

from __future__ import annotations

from typing import Any

import orjson

from policydiff.mutation_results import MutantResult, MutationReport, describe, gate_failures

__all__ = ["render"]

_SECTIONS = (
    ("corpus gap", "Killed by the tests but not reported by the diff (corpus gaps)"),
    ("test gap", "Reported by the diff but not killed by the tests (test gaps)"),
    (
        "survivor",
        "Neither killed nor reported, not listed as equivalent (judge: an equivalent "
        "mutant goes into policydiff/equivalent-mutants.yaml with its reason, anything "
        "else needs a test and a corpus record)",
    ),
)


def _evidence(result: MutantResult) -> str:
    parts = []
    if result.failed_test:
        parts.append(f"test {result.failed_test}")
    if result.change:
        parts.append(f"diff {result.change}")
    return "; ".join(parts)


def _header(report: MutationReport) -> list[str]:
    run = (
        f"{len(report.results)} sampled (seed {report.sample[1]})"
        if report.sample is not None
        else f"all {len(report.results)}"
    )
    return [
        f"policies: {report.policies}",
        f"mutants: {report.mutants} in the policies, {report.unread} of them in rules no "
        f"entry point reads (not run); run: {run}",
        f"corpus: {report.records:,} records",
        "time: " + ", ".join(f"{phase} {value:.1f} s" for phase, value in report.seconds.items()),
    ]


def _gate(report: MutationReport) -> list[str]:
    failures = gate_failures(report)
    if not failures:
        return ["gate: passed (every killed mutant is reported; every other one is listed)"]
    return ["gate: FAILED", *(f"  {line}" for line in failures)]


def _table(report: MutationReport) -> str:
    lines = ["Policy mutation report", *_header(report), ""]
    width = max(len(name) for name in report.figures)
    lines += [f"  {name:<{width}}  {count:>5}" for name, count in report.figures.items()]
    for category, title in _SECTIONS:
        chosen = [result for result in report.results if result.category == category]
        if chosen:
            lines += ["", f"{title}:"]
            for result in chosen:
                lines.append(f"  {result.mutant.id}  (line {result.mutant.row})")
                if evidence := _evidence(result):
                    lines.append(f"      {evidence}")
    if report.stale:
        lines += ["", "Listed as equivalent but no longer a mutant of the policies (remove):"]
        lines += [f"  {entry}" for entry in report.stale]
    lines += ["", *_gate(report)]
    return "\n".join(lines) + "\n"


def _markdown(report: MutationReport) -> str:
    lines = ["## Policy mutation report", "", *(f"* {line}" for line in _header(report)), ""]
    lines += ["| | mutants |", "| --- | ---: |"]
    lines += [f"| {name} | {count} |" for name, count in report.figures.items()]
    for category, title in _SECTIONS:
        chosen = [result for result in report.results if result.category == category]
        if chosen:
            lines += ["", f"### {title}", ""]
            for result in chosen:
                evidence = _evidence(result)
                lines.append(f"* `{result.mutant.id}`" + (f" ({evidence})" if evidence else ""))
    if report.stale:
        lines += ["", "### Listed as equivalent but no longer a mutant", ""]
        lines += [f"* `{entry}`" for entry in report.stale]
    lines += ["", *_gate(report)]
    return "\n".join(lines) + "\n"


def _json(report: MutationReport) -> str:
    document: dict[str, Any] = {
        "policies": report.policies,
        "mutants": report.mutants,
        "unread": report.unread,
        "sample": list(report.sample) if report.sample else None,
        "records": report.records,
        "figures": report.figures,
        "seconds": {phase: round(value, 3) for phase, value in report.seconds.items()},
        "results": [describe(result) for result in report.results],
        "stale_equivalents": report.stale,
        "gate_failures": gate_failures(report),
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def render(report: MutationReport, format: str) -> str:
    """The report in ``format`` (``table``, ``markdown`` or ``json``)."""
    if format == "json":
        return _json(report)
    if format == "markdown":
        return _markdown(report)
    return _table(report)
