"""Benchmark of getRunContext beside a bare OPA decision (``make bench``).

Run it with ``python -m tests.load.bench`` (``--help`` lists the knobs). It is bounded
(every case stops after a fixed number of requests or a time cap, whichever comes
first), uses loopback only (127.0.0.1) and cleans up after itself, also on error or
Ctrl-C. What it does, in order:

1. Starts a throwaway PostgreSQL cluster and the real OPA (``.bin/opa`` serving
   ``policies/``), the same way the integration tests do, migrates a database and
   loads a generated world through the product's loader (``load_world_data``, what
   ``python -m app world load`` runs, its ANALYZE included; the harness analyses
   nothing itself): the seed world's shape (space ``support`` with channel
   ``general`` operated by agent ``lotse``; ``alex`` trigger on the space, ``sam``
   trigger on the channel, ``writer`` write only) with threads of 10, 100, 1,000 and
   100,000 earlier messages before the triggering message by ``alex``, each with a
   run of ``lotse``, and what the hot operations need (``tests/load/operations.py``).
   Contents vary in length (a few exceed ``agent.context_message_max_bytes`` and are
   cut) and contain multi-byte characters.
2. Starts the app with ``python -m app serve`` in a separate process (rate limits
   off, log level WARNING), so that the load generator does not compete with the
   server for one GIL, and measures getRunContext on the 100,000 thread right after
   the load, before anything else has read.
3. Measures, in-process, the OPA round trips and SQL statements one request costs
   (the app's own counters) per thread size and per hot operation, and the statements
   PostgreSQL actually received. It records the inputs the app sends to OPA, so the
   bare OPA decisions below use realistic input from the same world.
4. Measures getRunContext for each thread size at concurrency 1 and 8 (threads with
   one keep-alive ``requests.Session`` each), a bare OPA ``authz/decision`` and
   ``runcontext/evaluate`` over HTTP with the same client, the trivial policy on its
   own OPA (``tests/load/trivial.py``), every hot operation, the interleaved reading
   and the I/O floor.
5. Profiles the reference case (100 messages at concurrency 1) in-process with
   cProfile: the ASGI app is driven directly on one thread (sync handlers are run
   inline instead of in the thread pool, so one profiler sees the whole request).
6. Prints the tables and writes ``docs/benchmarks.md``.

A separate part, ``tests/load/overhead.py`` (issue 12), then measures what metrics and
tracing cost getRunContext and appends its section at the end of the report; another,
``tests/load/provenance.py`` (issue 24), measures whether OPA's provenance or decision
metadata names the policy revision of a decision more cheaply.
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
