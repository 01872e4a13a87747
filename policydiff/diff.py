"""Replay a corpus against two policy sets and group every decision that changes.

:func:`run_diff` starts a scratch OPA for each policy folder (in parallel), replays
every record against both in batches (several batches in flight, so both servers and
both cores stay busy), compares each pair of answers (:mod:`policydiff.compare`),
groups the changes by entry point, action and kind, and reduces a few examples of
each group to the facts that matter (:mod:`policydiff.minimise`). Widening groups come
first.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from policydiff.compare import Change, changes
from policydiff.corpus import Record
from policydiff.describe import phrase
from policydiff.minimise import Reduced, reduce
from policydiff.scratch import Outcome, ScratchOpa, replay

__all__ = ["DiffReport", "Example", "Group", "diff_on", "run_diff"]


@dataclass(frozen=True, slots=True)
class Example:
    """One reduced example of a group.

    Attributes:
        source: the corpus the record came from (``generated``, ``recorded``, ...).
        partial: the record had masked fields (replayed without them).
        transition: what changed for this record.
        reduced: the minimal input, the facts that matter and both answers.
        words: the facts that matter in the decision tables' words
            (``run agent: disabled``), one per fact.
    """

    source: str
    partial: bool
    transition: str
    reduced: Reduced
    words: tuple[str, ...] = ()


@dataclass
class Group:
    """The records whose answer changed the same way.

    Attributes:
        entrypoint: the OPA entry point.
        action: the input's action or the part of a batch answer.
        kind: the kind of change (:data:`policydiff.compare.KINDS`).
        widening: some record of the group gives more than before.
        records: indices of the changed records in the replayed corpus.
        transitions: how many records changed in each way.
        partial: how many of the records were partial.
        examples: reduced examples.
    """

    entrypoint: str
    action: str
    kind: str
    widening: bool = False
    records: list[int] = field(default_factory=list)
    transitions: Counter[str] = field(default_factory=Counter)
    partial: int = 0
    examples: list[Example] = field(default_factory=list)

    @property
    def id(self) -> str:
        """The group id used by ``--expect`` files: ``entrypoint action kind``."""
        return f"{self.entrypoint} {self.action} {self.kind}"


@dataclass
class DiffReport:
    """The outcome of one diff.

    Attributes:
        base: what the base policies are (a revision or a folder).
        head: what the head policies are.
        sources: unique records replayed per corpus source.
        records: unique records replayed.
        partial: how many of them were partial.
        changed: records with at least one change.
        unanswered: records the head policies give no answer for (undefined or an
            evaluation error), changed or not; the app would answer them with 503.
        groups: the change groups, widening first.
        seconds: wall time of each phase (start, replay, compare, examples, total).
    """

    base: str
    head: str
    sources: dict[str, int]
    records: int
    partial: int
    changed: int
    unanswered: int
    groups: list[Group]
    seconds: dict[str, float]

    @property
    def group_ids(self) -> list[str]:
        """The ids of every changed group."""
        return [group.id for group in self.groups]


def _pick(
    group: Group, sizes: Sequence[int], found: dict[int, list[Change]], count: int
) -> list[tuple[int, Change]]:
    """Candidate records for the group's examples, best first: up to ``count`` times four.

    Different transitions first, small records first. More candidates than examples
    are returned because reduction often turns two records into one example
    (:func:`_examples` keeps distinct ones). ``sizes`` are the sizes of the replayed
    records (``len(record.key)``), by index.
    """
    ordered = sorted(group.records, key=lambda index: sizes[index])
    picked: list[tuple[int, Change]] = []
    chosen: set[int] = set()
    shown: set[str] = set()
    for distinct in (True, False):
        for index in ordered:
            if len(picked) >= count * _CANDIDATES_PER_EXAMPLE:
                return picked
            change = next(
                c for c in found[index] if (c.action, c.kind) == (group.action, group.kind)
            )
            if index in chosen or (distinct and change.transition in shown):
                continue
            picked.append((index, change))
            chosen.add(index)
            shown.add(change.transition)
    return picked


_CANDIDATES_PER_EXAMPLE = 4


def _examples(
    group: Group,
    records: Sequence[Record],
    candidates: Sequence[tuple[int, Change]],
    count: int,
    evaluate: Any,
) -> list[Example]:
    """Reduce candidates until ``count`` distinct examples are found.

    Two examples are the same when, after reduction, they show the same transition
    on the same facts that matter (with their values); without such facts, when their
    minimal inputs are equal. A reader learns nothing from the second one.
    """
    examples: list[Example] = []
    seen: set[bytes] = set()
    for index, change in candidates:
        if len(examples) >= count:
            break
        record = records[index]
        reduced = reduce(record.entrypoint, record.input, change, evaluate)
        shown: Any = [[fact.path, fact.value] for fact in reduced.facts] or reduced.input
        key = orjson.dumps([change.transition, shown], option=orjson.OPT_SORT_KEYS)
        if key in seen:
            continue
        seen.add(key)
        examples.append(
            Example(
                source=record.source,
                partial=record.partial,
                transition=change.transition,
                reduced=reduced,
                words=tuple(
                    phrase(record.entrypoint, reduced.input, fact.steps, fact.value)
                    for fact in reduced.facts
                ),
            )
        )
    return examples


def diff_on(
    records: Sequence[Record],
    base: ScratchOpa,
    head: ScratchOpa,
    *,
    base_label: str,
    head_label: str,
    examples: int = 3,
) -> DiffReport:
    """Replay ``records`` against two started servers and group what changed.

    Raises:
        ScratchError: a server stops answering.
    """
    started = time.monotonic()
    seconds: dict[str, float] = {}
    sizes = [len(record.key) for record in records]
    with ThreadPoolExecutor(max_workers=4) as pool:
        base_outcomes, head_outcomes = replay(pool, (base, head), records, sizes=sizes)
        seconds["replay"] = time.monotonic() - started

        mark = time.monotonic()
        found: dict[int, list[Change]] = {}
        groups: dict[tuple[str, str, str], Group] = {}
        for index, record in enumerate(records):
            record_changes = changes(
                record.entrypoint, record.input, base_outcomes[index], head_outcomes[index]
            )
            if not record_changes:
                continue
            found[index] = record_changes
            for change in record_changes:
                key = (record.entrypoint, change.action, change.kind)
                group = groups.setdefault(key, Group(*key))
                if not group.records or group.records[-1] != index:
                    group.records.append(index)
                    group.partial += record.partial
                group.widening = group.widening or change.widening
                group.transitions[change.transition] += 1
        seconds["compare"] = time.monotonic() - mark

        mark = time.monotonic()

        def evaluate(entrypoint: str, inputs: Sequence[Any]) -> list[tuple[Outcome, Outcome]]:
            left = pool.submit(base.evaluate, entrypoint, inputs)
            right = pool.submit(head.evaluate, entrypoint, inputs)
            return list(zip(left.result(), right.result(), strict=True))

        for group in groups.values():
            candidates = _pick(group, sizes, found, examples)
            group.examples = _examples(group, records, candidates, examples, evaluate)
        seconds["examples"] = time.monotonic() - mark
    ordered = sorted(
        groups.values(), key=lambda g: (not g.widening, g.entrypoint, g.action, g.kind)
    )
    return DiffReport(
        base=base_label,
        head=head_label,
        sources=dict(Counter(record.source for record in records)),
        records=len(records),
        partial=sum(record.partial for record in records),
        changed=len(found),
        unanswered=sum("result" not in outcome for outcome in head_outcomes),
        groups=ordered,
        seconds=seconds,
    )


def run_diff(
    records: Sequence[Record],
    *,
    base_policies: Path,
    head_policies: Path,
    binary: Path,
    base_label: str,
    head_label: str,
    examples: int = 3,
) -> DiffReport:
    """Start a scratch OPA per policy folder (in parallel), diff, stop them.

    Raises:
        ScratchError: a scratch server does not start, load or answer.
    """
    started = time.monotonic()
    base = ScratchOpa(base_policies, binary=binary, name="base")
    head = ScratchOpa(head_policies, binary=binary, name="head")
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for future in [pool.submit(server.start) for server in (base, head)]:
                future.result()
        start = time.monotonic() - started
        report = diff_on(
            records,
            base,
            head,
            base_label=base_label,
            head_label=head_label,
            examples=examples,
        )
    finally:
        try:
            base.close()
        finally:
            head.close()
    report.seconds = {"start": start, **report.seconds, "total": time.monotonic() - started}
    return report
