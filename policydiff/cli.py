"""``python -m app policy ...``: the reviewer's commands ``diff``, ``generate``, ``capture``,
``doc`` and ``mutants`` (usage and exit statuses: docs/policy-guide.md, docs/policy-review.md).

``app/__main__.py`` imports this module only for ``policy``, so the service's own
commands never load it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from policydiff.corpus import CorpusError, Record, dedupe, read_corpus, write_corpus
from policydiff.expect import ExpectError, check, read_expect
from policydiff.generate import DEFAULT_SEED, generate
from policydiff.mutants import EQUIVALENTS, EquivalentError
from policydiff.rego import ParseError
from policydiff.scratch import ScratchError, extract_revision

__all__ = ["CORPUS_DIR", "REPO_ROOT", "main"]

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT / ".data" / "policy-corpus"
DECISIONS_DOC = REPO_ROOT / "docs" / "policy-decisions.md"
OPA = REPO_ROOT / ".bin" / "opa"

# Exit statuses of every command.
OK, CHANGED, FAILED = 0, 1, 2
# The sample of `make test`'s mutation gate (make policy-mutants-check).
DEFAULT_SAMPLE_SEED = 20


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app policy", description="policy impact diff, corpus and decision tables"
    )
    commands = parser.add_subparsers(dest="command", required=True)

    diff = commands.add_parser("diff", help="list every decision a policy change flips")
    base = diff.add_mutually_exclusive_group(required=True)
    base.add_argument("--base", metavar="REV", help="git revision whose policies/ is the base")
    base.add_argument("--base-dir", type=Path, metavar="DIR", help="a policies folder as the base")
    base.add_argument(
        "--base-bundle", type=Path, metavar="FILE", help="a built policy bundle as the base"
    )
    diff.add_argument(
        "--head-dir",
        type=Path,
        default=REPO_ROOT / "policies",
        metavar="DIR",
        help="the changed policies (default: the working tree's policies/)",
    )
    diff.add_argument(
        "--corpus",
        action="append",
        metavar="FILE",
        help="a corpus file, or 'generated' for the generated corpus; repeatable "
        "(default: generated, plus .data/policy-corpus/recorded.jsonl and captured.jsonl "
        "when they exist)",
    )
    diff.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    diff.add_argument("--expect", type=Path, metavar="FILE", help="the acknowledged change groups")
    diff.add_argument("--examples", type=int, default=3, help="reduced examples per group")
    diff.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the generated corpus")
    diff.add_argument("--output", type=Path, metavar="FILE", help="write the report here")
    diff.add_argument(
        "--require-answers",
        action="store_true",
        help="exit 1 also when a record has no answer from the head policies",
    )

    gen = commands.add_parser("generate", help="write the generated corpus")
    gen.add_argument("--seed", type=int, default=DEFAULT_SEED)
    gen.add_argument("--policies", type=Path, default=REPO_ROOT / "policies")
    gen.add_argument("--output", type=Path, default=CORPUS_DIR / "generated.jsonl")

    cap = commands.add_parser("capture", help="turn OPA decision logs into corpus records")
    cap.add_argument("logs", nargs="+", type=Path, metavar="LOG")
    cap.add_argument("--output", type=Path, default=CORPUS_DIR / "captured.jsonl")

    doc = commands.add_parser("doc", help="render the decision tables")
    doc.add_argument("--check", action="store_true", help="fail when the file is stale")
    doc.add_argument("--output", type=Path, default=DECISIONS_DOC)
    doc.add_argument("--policies", type=Path, default=REPO_ROOT / "policies")

    mut = commands.add_parser(
        "mutants", help="mutation testing: opa test and the diff on single-point mutants"
    )
    mut.add_argument("--policies", type=Path, default=REPO_ROOT / "policies")
    mut.add_argument(
        "--corpus",
        action="append",
        metavar="FILE",
        help="a corpus file, or 'generated'; repeatable (default: generated)",
    )
    mut.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the generated corpus")
    mut.add_argument("--sample", type=int, metavar="N", help="run a seeded sample of N mutants")
    mut.add_argument(
        "--sample-seed", type=int, default=DEFAULT_SAMPLE_SEED, help="seed of the sample"
    )
    mut.add_argument(
        "--only", action="append", metavar="TEXT", help="only mutants whose id contains TEXT"
    )
    mut.add_argument("--equivalents", type=Path, default=EQUIVALENTS, metavar="FILE")
    mut.add_argument("--gate", action="store_true", help="exit 1 when the mutation gate fails")
    mut.add_argument("--list", action="store_true", help="list the mutants and stop")
    mut.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    mut.add_argument("--output", type=Path, metavar="FILE", help="write the report here")
    mut.add_argument("--jobs", type=int, default=2, help="scratch OPA servers (default 2)")
    mut.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    mut.add_argument(
        "--replay-equivalents",
        action="store_true",
        help="with --sample: replay the corpus for listed equivalents too (full runs always do)",
    )
    return parser


def _corpus(
    names: list[str] | None, policies: Path, seed: int, also: tuple[Path, ...] = ()
) -> list[Record]:
    if not names:
        names = ["generated"] + [
            str(path)
            for path in (CORPUS_DIR / "recorded.jsonl", CORPUS_DIR / "captured.jsonl")
            if path.exists()
        ]
    records: list[Record] = []
    for name in names:
        if name == "generated":
            records.extend(generate(policies, seed=seed, binary=OPA, also=also))
        else:
            records.extend(read_corpus(name))
    return dedupe(records)


def _diff(args: argparse.Namespace) -> int:
    from policydiff.diff import run_diff
    from policydiff.report import render

    expected = read_expect(args.expect) if args.expect else None
    head: Path = args.head_dir.resolve()
    with tempfile.TemporaryDirectory(prefix="policy-diff-") as scratch:
        if args.base is not None:
            base = extract_revision(args.base, Path(scratch), repo=REPO_ROOT)
            base_label = f"{args.base} (git revision, policies/)"
        elif args.base_bundle is not None:
            from policydiff.bundles import extract_bundle

            base, revision = extract_bundle(args.base_bundle, Path(scratch))
            base_label = f"{args.base_bundle} (bundle, revision {revision or 'none'})"
        else:
            base = args.base_dir.resolve()
            base_label = str(base)
        # Values only the base's rules compare are generated too.
        records = _corpus(args.corpus, head, args.seed, also=(base,))
        report = run_diff(
            records,
            base_policies=base,
            head_policies=head,
            binary=OPA,
            base_label=base_label,
            head_label=str(head),
            examples=args.examples,
        )
    verdict = check(expected, report.group_ids) if expected is not None else None
    text = render(report, args.format, verdict)
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.require_answers and report.unanswered:
        return CHANGED
    if verdict is not None:
        return OK if verdict.passed else CHANGED
    return CHANGED if report.groups else OK


def _generate(args: argparse.Namespace) -> int:
    count = write_corpus(args.output, generate(args.policies, seed=args.seed, binary=OPA))
    print(f"wrote {count:,} generated records to {args.output}", file=sys.stderr)
    return OK


def _capture(args: argparse.Namespace) -> int:
    from policydiff.capture import capture

    records: list[Record] = []
    for log in args.logs:
        try:
            with log.open("rb") as lines:
                found, stats = capture(lines, source=log.name)
        except OSError as exc:
            raise CorpusError(f"{log}: {exc.strerror or type(exc).__name__}") from exc
        records.extend(found)
        skipped = ", ".join(f"{cause} {count}" for cause, count in sorted(stats.skipped.items()))
        print(
            f"{log}: {stats.records:,} decisions ({stats.partial:,} partial); "
            f"skipped: {skipped or 'none'}",
            file=sys.stderr,
        )
    count = write_corpus(args.output, records)
    print(f"wrote {count:,} captured records to {args.output}", file=sys.stderr)
    return OK


def _doc(args: argparse.Namespace) -> int:
    from policydiff.doc import render_decision_tables

    rendered = render_decision_tables(args.policies.resolve(), binary=OPA)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != rendered:
            print(f"{args.output} is stale: run make policy-doc", file=sys.stderr)
            return CHANGED
        return OK
    args.output.write_text(rendered, encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return OK


def _mutants(args: argparse.Namespace) -> int:
    from app.policy.gateway import ENTRYPOINTS
    from policydiff.mutants import enumerate_mutants, read_equivalents, sample
    from policydiff.mutation import Options, run_mutants
    from policydiff.mutation_report import render
    from policydiff.mutation_results import MutantResult, gate_failures
    from policydiff.rego import parse_modules
    from policydiff.rego_graph import reachable
    from policydiff.rego_vocabulary import vocabulary
    from policydiff.scratch import data_files

    policies: Path = args.policies.resolve()
    modules = parse_modules(policies, binary=OPA)
    everything = enumerate_mutants(modules, vocabulary(modules, data_files(policies)))
    # Mutants of rules no entry point reads cannot change an answer: not run.
    read = reachable(modules, ENTRYPOINTS)
    packages = {module.path: module.package_name for module in modules}
    live = [m for m in everything if f"{packages[m.file]}.{m.rule}" in read]
    chosen = [m for m in live if not args.only or any(t in m.id for t in args.only)]
    if args.sample is not None:
        chosen = sample(chosen, args.sample, args.sample_seed)
    equivalents = read_equivalents(args.equivalents)
    if args.list:
        sys.stdout.write("".join(f"{mutant.id}\n" for mutant in chosen))
        return OK
    records = _corpus(args.corpus or ["generated"], policies, args.seed)

    def progress(done: int, total: int, result: MutantResult) -> None:
        if not args.quiet:
            print(
                f"[{done}/{total}] {result.category}, {result.seconds:.1f} s: {result.mutant.id}",
                file=sys.stderr,
            )

    report = run_mutants(
        chosen,
        modules=modules,
        policies=policies,
        records=records,
        binary=OPA,
        equivalents=equivalents,
        total=len(everything),
        unread=len(everything) - len(live),
        options=Options(
            jobs=args.jobs,
            replay_equivalents=args.sample is None or args.replay_equivalents,
        ),
        sample=(args.sample, args.sample_seed) if args.sample is not None else None,
        progress=progress,
    )
    text = render(report, args.format)
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.gate and gate_failures(report):
        return CHANGED
    return OK


def main(argv: list[str] | None = None) -> int:
    """Run one ``policy`` command; returns the exit status (2 when it could not run)."""
    args = _parser().parse_args(argv)
    handlers = {
        "diff": _diff,
        "generate": _generate,
        "capture": _capture,
        "doc": _doc,
        "mutants": _mutants,
    }
    try:
        return handlers[args.command](args)
    except (
        CorpusError,
        EquivalentError,
        ExpectError,
        ParseError,
        ScratchError,
        OSError,
    ) as exc:
        print(f"policy {args.command}: {exc}", file=sys.stderr)
        return FAILED
