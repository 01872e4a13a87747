"""Benchmark of getRunContext and the hot operations beside a bare OPA decision
(``make bench``, ``python -m tests.load.bench --help``): starts its own PostgreSQL and
OPA, loads the benchmark world, runs the cases of ``tests/load/cases.py`` and the parts
of ``tests/load/parts.py``, and writes ``docs/benchmarks.md``. What it measures and
how: ``tests/load/README.md`` and the report's Method section.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import signal
import sys
import time
from types import FrameType

from app.logs import configure_logging
from tests.load import cases, options, parts
from tests.load.flaskapp import serve_flask
from tests.load.machine import load_average, machine
from tests.load.measure import DECISION_PATH, BenchError
from tests.load.report import kept_tail, render
from tests.load.world import AGENT_TOKEN, REFERENCE, prepare_database, statistics_after_load
from tests.support.served import local_sources


def _terminate(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the process exit code."""
    args = options.parser((__doc__ or "").splitlines()[0]).parse_args(argv)
    if args.serve_flask:
        return serve_flask()
    signal.signal(signal.SIGTERM, _terminate)
    started = dt.datetime.now(dt.UTC)
    clock = time.monotonic()
    facts = machine()
    load_at_start = load_average()
    configure_logging("WARNING")
    with contextlib.ExitStack() as stack:
        print("starting PostgreSQL and OPA ...", file=sys.stderr)
        cluster, opa = stack.enter_context(local_sources())
        print("loading the world through the product's loader ...", file=sys.stderr)
        database_url, ids = prepare_database(cluster, statistics=not args.without_statistics)
        facts["statistics after the load"] = statistics_after_load(database_url)
        measured = cases.measure(stack, args, cluster, opa.url, database_url, ids)
        bench = parts.BenchRun(
            cluster=cluster,
            opa_url=opa.url,
            database_url=database_url,
            run_id=ids[f"r{REFERENCE}"],
            token=AGENT_TOKEN,
            decision_input=measured.inputs[DECISION_PATH],
        )
        sections = parts.run_parts(bench, args)

    seconds = time.monotonic() - clock
    facts["load average at start / end"] = f"{load_at_start} / {load_average()}"
    report = render(
        started,
        facts,
        args,
        measured.results,
        measured.costs,
        measured.opa_by_c,
        measured.timers,
        measured.profile,
        seconds,
        hot=measured.hot,
    )
    report += sections
    print(report)
    if not args.no_write:
        args.output.write_text(report + kept_tail(args.output), encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; services stopped", file=sys.stderr)
        sys.exit(130)
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
