"""Mutation testing of the policies: does ``opa test`` fail, does the diff say so?

Runs each mutant (:mod:`policydiff.mutants`) against the tests and the corpus replay on
reused scratch servers and sorts it into the categories of docs/policy-review.md.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from policydiff.compare import changes
from policydiff.corpus import Record
from policydiff.mutants import Mutant
from policydiff.mutation_results import MutantResult, MutationReport
from policydiff.rego import Module
from policydiff.rego_graph import dependents, entrypoint_packages
from policydiff.scratch import Outcome, ScratchError, ScratchOpa, replay

__all__ = [
    "Options",
    "run_mutants",
]

_DISPATCH = "authz/decision.rego"  # the module whose rules route actions to packages
_FIRST_BATCH, _LARGEST_BATCH = 64, 1024
_TEST_TIMEOUT = 300


class _Plan:
    """Which records each mutated module can change, in a fixed shuffled order."""

    def __init__(
        self,
        modules: Sequence[Module],
        records: Sequence[Record],
        owners: dict[str, str],
        *,
        seed: int,
    ) -> None:
        self._readers = dependents(modules)
        self._entrypoints = entrypoint_packages(modules, sorted({r.entrypoint for r in records}))
        self._records = records
        self._owners = owners
        order = list(range(len(records)))
        random.Random(seed).shuffle(order)  # noqa: S311 - a reproducible order, not a secret
        self._order = order

    def relevant(self, mutant: Mutant) -> list[int]:
        readers = self._readers.get(mutant.file, {mutant.file})
        by_action = mutant.file != _DISPATCH and mutant.rule != "actions"
        chosen: list[int] = []
        for index in self._order:
            record = self._records[index]
            module = self._entrypoints.get(record.entrypoint)
            if module is None or module not in readers:
                continue
            if by_action and module != mutant.file and isinstance(record.input, dict):
                action = record.input.get("action")
                if isinstance(action, str) and self._owners.get(action, _DISPATCH) not in readers:
                    continue
            chosen.append(index)
        return chosen


def _owners(server: ScratchOpa, modules: Sequence[Module]) -> dict[str, str]:
    """Action name to the module whose ``actions`` set lists it."""
    owners: dict[str, str] = {}
    for module in modules:
        if not any(rule.name == "actions" for rule in module.rules()):
            continue
        entrypoint = "/".join((*module.package, "actions"))
        outcome = server.query_document(entrypoint)
        if isinstance(outcome, list):
            for action in outcome:
                owners[str(action)] = module.path
    return owners


def _first_failure(output: bytes) -> str | None:
    try:
        results = json.loads(output or b"[]")
    except ValueError:
        return None
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and (result.get("fail") or result.get("error")):
            return f"{result.get('package', '')}.{result.get('name', '')}".removeprefix("data.")
    return None


class _Worker:
    """One scratch OPA and one copy of the policies (tests included) for ``opa test``."""

    def __init__(self, policies: Path, binary: Path, scratch: Path, name: str) -> None:
        self.binary = binary
        self.copy = scratch / name / "policies"
        shutil.copytree(policies, self.copy)
        self.server = ScratchOpa(policies, binary=binary, name=name)
        # The module the server holds a mutant of, and its original source: it is put
        # back only when the next mutant is in another module (a put compiles all).
        self.dirty: tuple[str, bytes] | None = None

    def load(self, module: str, source: bytes, original: bytes) -> str | None:
        """Load a mutant of ``module``; returns OPA's compile error, or ``None``."""
        if self.dirty is not None and self.dirty[0] != module:
            self.restore()
        self.dirty = (module, original)
        return self.server.put_module(module, source.decode("utf-8"))

    def restore(self) -> None:
        """Put the original of the mutated module back."""
        if self.dirty is not None:
            module, original = self.dirty
            error = self.server.put_module(module, original.decode("utf-8"))
            if error is not None:
                raise ScratchError(f"could not restore {module}: {error}")
            self.dirty = None

    def opa_test(
        self, module: str, source: bytes, original: bytes
    ) -> tuple[bool, str | None, str | None]:
        """(killed, first failing test, compile error) of ``opa test`` with ``source``."""
        path = self.copy / module
        path.write_bytes(source)
        try:
            result = subprocess.run(
                [str(self.binary), "test", "--format", "json", str(self.copy)],
                capture_output=True,
                check=False,
                timeout=_TEST_TIMEOUT,
            )
        finally:
            path.write_bytes(original)
        if result.returncode == 0:
            return False, None, None
        failed = _first_failure(result.stdout)
        if failed is None and result.returncode != 2:
            message = result.stderr.decode("utf-8", errors="replace")
            return False, None, _first_error(message or f"opa test exit {result.returncode}")
        return True, failed, None


def _first_error(message: str) -> str:
    """The first line of OPA's compile error that says what is wrong."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    specific = [line for line in lines if "rego_" in line or ": " in line]
    return (specific or lines or ["does not compile"])[0][:300]


def _replay_until_changed(
    server: ScratchOpa,
    records: Sequence[Record],
    base: Sequence[Outcome],
    indices: Sequence[int],
) -> tuple[str | None, int]:
    """The first change a replay of ``indices`` shows (or ``None``) and how many it sent."""
    position, size, sent = 0, _FIRST_BATCH, 0
    while position < len(indices):
        chunk = indices[position : position + size]
        position += len(chunk)
        size = min(size * 2, _LARGEST_BATCH)
        grouped: dict[str, list[int]] = {}
        for index in chunk:
            grouped.setdefault(records[index].entrypoint, []).append(index)
        for entrypoint, group in grouped.items():
            outcomes = server.evaluate(
                entrypoint, [records[index].input for index in group], split=False
            )
            sent += len(group)
            for index, outcome in zip(group, outcomes, strict=True):
                found = changes(entrypoint, records[index].input, base[index], outcome)
                if found:
                    first = found[0]
                    return f"{entrypoint} {first.action} {first.kind}: {first.transition}", sent
    return None, sent


@dataclass(frozen=True, slots=True)
class Options:
    """How a mutation run asks its two questions.

    Attributes:
        jobs: workers, each with its own scratch OPA and policies copy, working on
            one mutant at a time.
        replay_equivalents: replay the corpus for listed equivalent mutants too (the
            check that the diff does not report them; a sampled gate skips it).
    """

    jobs: int = 2
    replay_equivalents: bool = True


def _check_baseline(worker: _Worker, policies: Path) -> None:
    """The unmutated policies pass ``opa test`` (else no mutant could be judged)."""
    result = subprocess.run(
        [str(worker.binary), "test", str(policies)],
        capture_output=True,
        check=False,
        timeout=_TEST_TIMEOUT,
    )
    if result.returncode != 0:
        raise ScratchError(
            "opa test fails on the unmutated policies: "
            + result.stdout.decode("utf-8", errors="replace")[-1000:]
        )


def run_mutants(
    mutants: Sequence[Mutant],
    *,
    modules: Sequence[Module],
    policies: Path,
    records: Sequence[Record],
    binary: Path,
    equivalents: dict[str, str],
    total: int,
    unread: int = 0,
    options: Options = Options(),
    sample: tuple[int, int] | None = None,
    progress: Callable[[int, int, MutantResult], None] | None = None,
) -> MutationReport:
    """Run ``opa test`` and the diff on every mutant; ``modules`` are the parsed policies.

    Raises:
        ScratchError: a scratch OPA does not start or stops answering, or the tests
            fail without a mutant.
    """
    started = time.monotonic()
    seconds: dict[str, float] = {}
    sources = {module.path: module.source for module in modules}
    with tempfile.TemporaryDirectory(prefix="policy-mutants-") as scratch:
        workers = [
            _Worker(policies, binary, Path(scratch), f"mutants-{number}")
            for number in range(max(1, options.jobs))
        ]
        try:
            with ThreadPoolExecutor(max_workers=len(workers)) as pool:
                for future in [pool.submit(worker.server.start) for worker in workers]:
                    future.result()
            _check_baseline(workers[0], policies)
            seconds["start"] = time.monotonic() - started

            mark = time.monotonic()
            with ThreadPoolExecutor(max_workers=4) as pool:
                (base,) = replay(pool, (workers[0].server,), records)
            answered = [index for index, outcome in enumerate(base) if "error" not in outcome]
            kept = [records[index] for index in answered]
            base_kept = [base[index] for index in answered]
            owners = _owners(workers[0].server, modules)
            plan = _Plan(modules, kept, owners, seed=0)
            seconds["base replay"] = time.monotonic() - mark

            mark = time.monotonic()
            results: list[MutantResult | None] = [None] * len(mutants)
            lock = threading.Lock()
            # By module, so that a worker's next mutant is mostly in the module it holds.
            queue = sorted(enumerate(mutants), key=lambda item: item[1].file)
            done = 0

            def work(worker: _Worker) -> None:
                nonlocal done
                while True:
                    with lock:
                        if not queue:
                            return
                        position, mutant = queue.pop(0)
                    result = _run_one(
                        worker,
                        mutant,
                        _Corpus(sources, kept, base_kept, plan),
                        options,
                        equivalents.get(mutant.id),
                    )
                    with lock:
                        results[position] = result
                        done += 1
                        if progress is not None:
                            progress(done, len(mutants), result)

            with ThreadPoolExecutor(max_workers=len(workers)) as pool:
                for running in [pool.submit(work, worker) for worker in workers]:
                    running.result()
            seconds["mutants"] = time.monotonic() - mark
        finally:
            for worker in workers:
                worker.server.close()
    known = {mutant.id for mutant in mutants}
    stale = sorted(set(equivalents) - known) if sample is None else []
    seconds["total"] = time.monotonic() - started
    return MutationReport(
        policies=str(policies),
        mutants=total,
        results=[result for result in results if result is not None],
        records=len(kept),
        unread=unread,
        sample=sample,
        stale=stale,
        seconds=seconds,
    )


@dataclass(frozen=True, slots=True)
class _Corpus:
    """The module sources, the replayed records, their base outcomes and the plan."""

    sources: dict[str, bytes]
    records: Sequence[Record]
    base: Sequence[Outcome]
    plan: _Plan


def _run_one(
    worker: _Worker,
    mutant: Mutant,
    corpus: _Corpus,
    options: Options,
    equivalent: str | None,
) -> MutantResult:
    started = time.monotonic()
    original = corpus.sources[mutant.file]
    edited = mutant.apply(original)
    error = worker.load(mutant.file, edited, original)
    if error is not None:
        return MutantResult(mutant, invalid=_first_error(error), seconds=time.monotonic() - started)
    killed, failed_test, test_error = worker.opa_test(mutant.file, edited, original)
    if test_error is not None:
        return MutantResult(mutant, invalid=test_error, seconds=time.monotonic() - started)
    indices = corpus.plan.relevant(mutant)
    change, sent = None, 0
    if equivalent is None or options.replay_equivalents:
        change, sent = _replay_until_changed(worker.server, corpus.records, corpus.base, indices)
    return MutantResult(
        mutant,
        killed=killed,
        failed_test=failed_test,
        reported=change is not None,
        change=change,
        replayed=sent,
        relevant=len(indices),
        seconds=time.monotonic() - started,
        equivalent=equivalent,
    )
