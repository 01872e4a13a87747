"""Render a :class:`~policydiff.diff.DiffReport` as a table, Markdown or JSON.

* ``table``: plain text for a terminal;
* ``markdown``: for a pull request comment;
* ``json``: for tools (every group with its counts, transitions and examples).

All three list widening groups first and mark them; each group shows its id (the line
an ``--expect`` file lists), its record count, its transitions and its examples: the
facts that flip it in the decision tables' words (``run agent: disabled``), the same
facts as input paths, the minimal input and both answers.
"""

from __future__ import annotations

from typing import Any

import orjson

from policydiff.diff import DiffReport, Example, Group
from policydiff.expect import Verdict

__all__ = ["render"]


def _value(value: Any) -> str:
    return orjson.dumps(value).decode()


_NONE_ALONE = "(none alone: the change needs several facts together)"


def _facts(example: Example) -> str:
    facts = example.reduced.facts
    if not facts:
        return _NONE_ALONE
    return "; ".join(
        f"{fact.path} {'present' if fact.value == 'present' else '= ' + _value(fact.value)}"
        for fact in facts
    )


def _words(example: Example) -> str:
    return "; ".join(example.words) if example.words else _NONE_ALONE


def _answer(outcome: dict[str, Any]) -> str:
    if "result" in outcome:
        return _value(outcome["result"])
    if "error" in outcome:
        return f"error {outcome['error']}"
    return "undefined"


def _summary(report: DiffReport) -> list[str]:
    sources = ", ".join(f"{name} {count:,}" for name, count in sorted(report.sources.items()))
    widening = sum(group.widening for group in report.groups)
    return [
        f"base: {report.base}",
        f"head: {report.head}",
        f"corpus: {report.records:,} records ({sources}); {report.partial:,} partial",
        f"changed: {report.changed:,} records in {len(report.groups)} groups ({widening} widening)",
        f"unanswered by the head policies (undefined or error): {report.unanswered:,}",
        "time: " + ", ".join(f"{phase} {value:.1f} s" for phase, value in report.seconds.items()),
    ]


def _verdict_lines(verdict: Verdict | None) -> list[str]:
    if verdict is None:
        return []
    if verdict.passed:
        return ["expect: passed (exactly the listed groups changed)"]
    lines = ["expect: FAILED"]
    lines += [f"  changed but not listed: {group}" for group in verdict.unexpected]
    lines += [f"  listed but unchanged:   {group}" for group in verdict.missing]
    return lines


def _table(report: DiffReport, verdict: Verdict | None) -> str:
    lines = ["Policy impact diff", *_summary(report), *_verdict_lines(verdict), ""]
    if not report.groups:
        lines.append("No decision changed.")
    for group in report.groups:
        marker = "WIDENING  " if group.widening else ""
        lines.append(f"{marker}{group.id}: {len(group.records):,} records")
        if group.partial:
            lines.append(f"  partial records: {group.partial:,}")
        for transition, count in group.transitions.most_common():
            lines.append(f"  {count:>7,}  {transition}")
        for number, example in enumerate(group.examples, start=1):
            partial = ", partial" if example.partial else ""
            lines.append(f"  example {number} ({example.source}{partial}): {example.transition}")
            lines.append(f"    flips on: {_words(example)}")
            lines.append(f"    facts that matter: {_facts(example)}")
            lines.append(f"    minimal input: {_value(example.reduced.input)}")
            lines.append(f"    base: {_answer(example.reduced.base)}")
            lines.append(f"    head: {_answer(example.reduced.head)}")
        lines.append("")
    if report.groups:
        lines.append("Expect file listing exactly these groups:")
        lines += [f"  {group_id}" for group_id in report.group_ids]
    return "\n".join(lines).rstrip() + "\n"


def _markdown(report: DiffReport, verdict: Verdict | None) -> str:
    lines = ["## Policy impact diff", ""]
    lines += [f"* {line}" for line in _summary(report)]
    details: list[str] = []
    for line in _verdict_lines(verdict):
        if line.startswith("  "):
            details.append(f"  * {line.strip()}")
        else:
            lines.append(f"* {line}")
    lines += details
    lines.append("")
    if not report.groups:
        lines.append("No decision changed.")
        return "\n".join(lines) + "\n"
    lines += ["| | group | records | transitions |", "| --- | --- | ---: | --- |"]
    for group in report.groups:
        transitions = "<br>".join(
            f"{count:,}: `{transition}`" for transition, count in group.transitions.most_common(5)
        )
        mark = "**widening**" if group.widening else ""
        lines.append(f"| {mark} | `{group.id}` | {len(group.records):,} | {transitions} |")
    for group in report.groups:
        lines += ["", f"### `{group.id}`{' (widening)' if group.widening else ''}", ""]
        for number, example in enumerate(group.examples, start=1):
            partial = ", partial" if example.partial else ""
            lines += [
                f"{number}. {example.source}{partial}: `{example.transition}`",
                f"   * flips on: {_words(example)}",
                f"   * facts that matter: {_facts(example)}",
                f"   * base `{_answer(example.reduced.base)}`, "
                f"head `{_answer(example.reduced.head)}`",
                "",
                "   ```json",
                f"   {_value(example.reduced.input)}",
                "   ```",
            ]
    return "\n".join(lines) + "\n"


def _attributes(source: object, *names: str) -> dict[str, Any]:
    """``name: source.name`` for each of ``names``, in that order (the order of the JSON)."""
    return {name: getattr(source, name) for name in names}


def _group_json(group: Group) -> dict[str, Any]:
    return {
        **_attributes(group, "id", "entrypoint", "action", "kind", "widening"),
        "records": len(group.records),
        "partial": group.partial,
        "transitions": dict(group.transitions.most_common()),
        "examples": [
            {
                **_attributes(example, "source", "partial", "transition"),
                "words": list(example.words),
                "facts": [
                    {"path": fact.path, "value": fact.value} for fact in example.reduced.facts
                ],
                **_attributes(example.reduced, "input", "base", "head"),
            }
            for example in group.examples
        ],
    }


def _json(report: DiffReport, verdict: Verdict | None) -> str:
    names = ("base", "head", "records", "sources", "partial", "changed", "unanswered")
    document: dict[str, Any] = {
        **_attributes(report, *names),
        "seconds": {phase: round(value, 3) for phase, value in report.seconds.items()},
        "groups": [_group_json(group) for group in report.groups],
    }
    if verdict is not None:
        document["expect"] = {
            "passed": verdict.passed,
            "unexpected": list(verdict.unexpected),
            "missing": list(verdict.missing),
        }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def render(report: DiffReport, format: str, verdict: Verdict | None = None) -> str:
    """The report in ``format`` (``table``, ``markdown`` or ``json``)."""
    if format == "json":
        return _json(report, verdict)
    if format == "markdown":
        return _markdown(report, verdict)
    return _table(report, verdict)
