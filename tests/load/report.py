"""``docs/benchmarks.md``: the reading of the numbers and the whole report."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from app.config import load_settings
from app.server import worker_count
from tests.load.costs import COUNTED_REQUESTS, Cost, OpaTimers
from tests.load.measure import DECISION_PATH, EVALUATE_PATH, HotOperations, Result
from tests.load.names import BARE_EVALUATE, FLASK_NAME, FLOOR, FLOOR_BARE, INTERLEAVED_CONTEXT
from tests.load.profiling import Profile
from tests.load.tables import (
    costs_table,
    opa_table,
    operations_table,
    profile_section,
    results_table,
    statements_table,
)
from tests.load.targets import issue22_targets, targets, targets_table
from tests.load.world import REFERENCE, SIZES
from tests.support.services import REPO_ROOT

OUTPUT = REPO_ROOT / "docs" / "benchmarks.md"


def interpretation(
    results: list[Result],
    costs: dict[int, Cost],
    opa_by_c: dict[int, Result],
    timers: list[OpaTimers],
    profile: Profile | None,
) -> str:
    """A short reading of the numbers, computed from them."""
    ctx = {(r.size, r.concurrency): r for r in results if r.name == "getRunContext"}
    flask = {r.concurrency: r for r in results if r.name == FLASK_NAME}
    reference = costs[REFERENCE]
    evaluate = next((t for t in timers if t.path == EVALUATE_PATH), None)
    decision = next((t for t in timers if t.path == DECISION_PATH), None)
    evaluations = {
        r.name: r
        for r in results
        if r.name.startswith("bare OPA runcontext") and r.concurrency == 1
    }
    logged = evaluations.get(BARE_EVALUATE)
    quiet = evaluations.get(f"{BARE_EVALUATE}, decision logs off")
    sizes = " / ".join(f"{size:,}" for size in SIZES)
    lines = [
        f"* Cost does not grow with the thread: every size takes {reference.opa_calls} OPA "
        f"round trips and {reference.sql_statements} SQL statements; PostgreSQL receives "
        f"{len(reference.pg_statements)} (everything the driver sends). p50 at concurrency 1 "
        "is "
        + " / ".join(f"{ctx[(size, 1)].percentile(50):.2f}" for size in SIZES)
        + f" ms for {sizes} earlier messages; from 100 on every case returns the same "
        f"window ({reference.thread_items} thread and {reference.channel_items} channel "
        "elements).",
        f"* A request of the {REFERENCE} case costs "
        f"{ctx[(REFERENCE, 1)].percentile(50) / opa_by_c[1].percentile(50):.1f}x a bare OPA "
        f"`authz/decision` over HTTP at concurrency 1 (bare p50 "
        f"{opa_by_c[1].percentile(50):.2f} ms). PostgreSQL's server time for all "
        f"statements is {reference.pg_ms:.2f} ms"
        + (
            f"; OPA's own time is {decision.handler_ms:.2f} ms for the decision and "
            f"{evaluate.handler_ms:.2f} ms for the batch ({evaluate.eval_ms:.2f} ms "
            f"evaluation, {evaluate.input_bytes / 1024:.1f} KiB input)"
            if evaluate and decision
            else ""
        )
        + ". The rest is the app process and the transports."
        + (
            f" Bare `runcontext/evaluate` takes p50 {logged.percentile(50):.2f} ms with "
            f"decision logs and {quiet.percentile(50):.2f} ms without."
            if logged is not None and quiet is not None
            else ""
        ),
        "* At concurrency 8 the app ("
        + f"{worker_count(load_settings(environ={}))} uvicorn workers) serves "
        + " / ".join(f"{ctx[(size, 8)].rps:.0f}" for size in SIZES)
        + f" req/s ({sizes}) against "
        + " / ".join(f"{ctx[(size, 1)].rps:.0f}" for size in SIZES)
        + " at concurrency 1. On two cores the app, PostgreSQL, OPA and the client share "
        "the CPUs; scale out with replicas, each with its OPA sidecar (SPEC section 10).",
    ]
    floor_read = next((r for r in results if r.name == FLOOR), None)
    floor_bare = next((r for r in results if r.name == FLOOR_BARE), None)
    interleaved_ctx = next((r for r in results if r.name == INTERLEAVED_CONTEXT), None)
    if floor_read is not None and floor_bare is not None:
        floor_ms = floor_read.percentile(50)
        line = (
            f"* The I/O floor: the same {reference.sql_statements} statements and "
            f"{reference.opa_calls} OPA calls with the same parameters and inputs, sent "
            f"from one thread on a raw psycopg2 connection and a raw socket to OPA, take "
            f"p50 {floor_ms:.2f} ms, {floor_ms / floor_bare.percentile(50):.1f}x the bare "
            "decision interleaved with them: no implementation that makes these round "
            "trips on this host reads the context for less"
        )
        if interleaved_ctx is not None:
            line += (
                f"; the app's interleaved p50 ({interleaved_ctx.percentile(50):.2f} ms) "
                f"lies {interleaved_ctx.percentile(50) - floor_ms:.2f} ms above it: the "
                f"HTTP front (a {reference.response_bytes / 1024:.0f} KiB response), "
                "Connexion's middleware, SQLAlchemy, two thread hops, window planning, "
                "shaping and encoding"
            )
        lines.append(line + ".")
    if flask:
        lines.append(
            f"* Connexion `FlaskApp` on the same handler ({REFERENCE} case): p50 "
            + " / ".join(f"{r.percentile(50):.2f} ms at c={c}" for c, r in sorted(flask.items()))
            + " against `AsyncApp` "
            + " / ".join(f"{ctx[(REFERENCE, c)].percentile(50):.2f} ms" for c in sorted(flask))
            + "; throughput "
            + " / ".join(f"{r.rps:.0f}" for _, r in sorted(flask.items()))
            + " against "
            + " / ".join(f"{ctx[(REFERENCE, c)].rps:.0f}" for c in sorted(flask))
            + " req/s."
        )
    if profile is not None:
        python_ms = profile.request_ms - profile.pg_ms - profile.opa_wait_ms
        python_parts = sorted(
            (
                (name.strip().removeprefix("of which ").split(" (")[0], ms)
                for name, ms in profile.parts
                if name.startswith(("Connexion", "Use case", "Response")) or "in Python" in name
            ),
            key=lambda part: -part[1],
        )
        lines.append(
            f"* In the profile of the {REFERENCE}-message case at concurrency 1, "
            f"{100 * python_ms / profile.request_ms:.0f}% of a request is Python in the app "
            "process, not PostgreSQL's or OPA's work or the wait for them. The largest Python "
            "parts: "
            + "; ".join(f"{name} {ms:.2f} ms" for name, ms in python_parts[:3])
            + " (profiled ms; see Profile)."
        )
    return "\n".join(lines)


# Everything below this line of docs/benchmarks.md is kept when the file is rewritten:
# earlier runs worth comparing against (written by hand from an earlier render).
KEEP_MARKER = (
    "<!-- Everything below is kept by make bench:"
    " earlier runs and benchmarks measured by other commands. -->"
)


def kept_tail(output: Path) -> str:
    """The part of an existing report below :data:`KEEP_MARKER`, with the marker."""
    if not output.exists():
        return ""
    text = output.read_text(encoding="utf-8")
    index = text.find(KEEP_MARKER)
    return "" if index < 0 else "\n" + text[index:]


def replace_part_section(report: str, heading: str, section: str) -> str:
    """``report`` with a part's section (from ``heading`` to the next ``## `` heading or
    the kept tail) replaced by ``section``, for a part run on its own
    (``python -m tests.load.<part>``). A report without that section gets it before the
    overhead section (which ``tests/load/overhead.py`` keeps last), else before the kept
    tail, else at the end."""
    from tests.load.overhead import HEADING as OVERHEAD

    if f"\n{heading}\n" in report:
        head, rest = report.split(f"\n{heading}\n", 1)
        ends = [index for index in (rest.find("\n## "), rest.find(KEEP_MARKER)) if index >= 0]
        tail = rest[min(ends) :] if ends else ""
        return f"{head.rstrip()}\n\n{section.rstrip()}\n{tail}"
    for anchor in (f"\n{OVERHEAD}\n", KEEP_MARKER):
        if anchor in report:
            head, rest = report.split(anchor, 1)
            return f"{head.rstrip()}\n\n{section.rstrip()}\n{anchor}{rest}"
    return report.rstrip("\n") + "\n\n" + section


def render(
    started: dt.datetime,
    facts: dict[str, str],
    args: argparse.Namespace,
    results: list[Result],
    costs: dict[int, Cost],
    opa_by_c: dict[int, Result],
    timers: list[OpaTimers],
    profile: Profile | None,
    seconds: float,
    hot: HotOperations | None = None,
) -> str:
    """The whole ``docs/benchmarks.md``."""
    machine_lines = "\n".join(f"* {name}: {value}" for name, value in facts.items())
    parts = [
        "# Benchmarks",
        "",
        "Generated by `make bench` (`python -m tests.load.bench`, method below and in "
        "`tests/load/README.md`); rerun it to refresh this file. Numbers are from one run "
        "on the machine below; compare runs on the same machine only.",
        "",
        f"Run: {started.strftime('%Y-%m-%d %H:%M UTC')}, {seconds:.0f} s in total.",
        "",
        "## Machine",
        "",
        machine_lines,
        "",
        "## Method",
        "",
        "* Throwaway PostgreSQL cluster (fsync off) and the real OPA serving `policies/` "
        "with console decision logs, both on 127.0.0.1; a generated world in the seed "
        "world's shape (space support, channel general operated by agent lotse; alex "
        "trigger on the space, sam trigger on the channel, writer write only) with threads "
        "of 10, 100, 1,000 and 100,000 earlier messages before alex's triggering message "
        "and a run of lotse in each (session started without an earlier run, so `bind`: "
        "channel context wanted, own messages included; lotse has no read grant, so the "
        "run's own reach decides what it reads). Contents vary from 20 characters to 24 KB "
        "(about 1% are cut at `agent.context_message_max_bytes`) and contain 2-, 3- and "
        "4-byte UTF-8 characters; about 5% carry an attachment; the 100,000 thread repeats "
        "the 1,000 thread's messages. The whole world, the 100,000 thread included, is "
        "loaded through the product's loader "
        "(`world.load_world_data`, what `python -m app world load` runs: COPY, then "
        "ANALYZE of what it filled"
        + (
            "; this run with `--without-statistics`: no ANALYZE and autovacuum off for the "
            "loaded tables, so the planner never had statistics"
            if args.without_statistics
            else ""
        )
        + "); the harness runs no VACUUM or ANALYZE of its own "
        "(the statistics the planner had are under Machine). The channel sets no "
        "backfill limit, so `channel.history_backfill_limit_default` (50) applies, and 60 "
        "main-thread messages precede the threads' parent messages.",
        f"* Right after the load: the app process starts and its first case is "
        f"getRunContext on the {max(SIZES):,} thread ({args.warmup} warm-up requests, then "
        f"{args.requests_c1} at concurrency 1), so its connections prepare and plan their "
        "statements with whatever statistics the load left.",
        "* The app runs as `python -m app serve` in its own process (Connexion `AsyncApp`, "
        f"`server.workers` at its default: {worker_count(load_settings(environ={}))} uvicorn "
        "workers on this machine, rate limits off, log level WARNING). The client is this "
        "process: one thread per concurrent caller, each with its own keep-alive "
        "`requests.Session` whose connection is opened before timing starts.",
        f"* Per thread size {args.warmup} warm-up requests at concurrency 1 and 8, then "
        f"{args.requests_c1} requests at concurrency 1 and {args.requests_c8} at "
        f"concurrency 8, each case capped at {args.case_seconds:.0f} s. Latency is the "
        "client's wall time per request; req/s is completed requests over the case's wall "
        "time.",
        "* Bare OPA: the same client posts to `/v1/data/authz/decision` the exact input the "
        f"app sent to authorize the {REFERENCE}-message request (its fact bundle included), "
        "and to "
        "`/v1/data/runcontext/evaluate` the input of that request's second, batched call; "
        "the answer is parsed as JSON like the app's client does. The latter is measured "
        "once more against a second OPA with decision logs off (the sidecar's configuration "
        "`deploy/opa/config.yaml` logs every decision to the console). The ratio column "
        "divides getRunContext's p50 by the bare `authz/decision` p50 at the same "
        "concurrency.",
        f"* Interleaved: {args.interleaved_rounds} rounds on one thread, each calling "
        f"getRunContext ({REFERENCE} case), getRunContext ({max(SIZES):,} case), the bare "
        "`authz/decision` and the trivial policy once, in a shuffled "
        "order, each on its own keep-alive session. Each hot operation likewise, "
        f"{args.operation_rounds} rounds with the bare decision and the trivial policy. "
        "The cases above run one after the other and each meets the load the shared host "
        "has at its moment; interleaved, all meet "
        "the same moments, so their ratio does not move with that load. Its req/s is one "
        "over the mean latency.",
        "* I/O floor (`tests/load/floor.py`): a fresh app serves two reads of the "
        f"{REFERENCE} case in-process while every statement and OPA call is recorded; the "
        "second read's round trips are replayed on a raw psycopg2 connection (autocommit, "
        "its statements prepared as the app prepares them, rows fetched) and a raw "
        "keep-alive socket to OPA (answers parsed by httptools and orjson), interleaved "
        f"with the bare `authz/decision` for {args.interleaved_rounds} rounds like the "
        "interleaved reading.",
        "* Cost per request is counted in-process once per size: the app's OPA and SQL "
        f"counters around {COUNTED_REQUESTS} requests served by uvicorn in a thread, and "
        "PostgreSQL's own log (`log_min_duration_statement = 0`) for the statements it "
        "received and their server time (median per statement). OPA's timers come from "
        "`?metrics=true` (median of 25 calls).",
    ]
    if any(r.name == FLASK_NAME for r in results):
        parts.append(
            "* FlaskApp variant: the same spec, handlers and services on Connexion's "
            "`FlaskApp` (WSGI bridge, thread pool of 10), built by the benchmark (handlers' "
            "Starlette responses converted to Flask responses), served the same way; "
            f"measured on the {REFERENCE} case only."
        )
    if hot is not None:
        parts.append(
            "* Hot operations (`tests/load/operations.py`): each measured like getRunContext "
            f"({args.warmup} warm-up requests, then concurrency 1 and 8), beside the bare "
            "`authz/decision` and the trivial policy (`tests/load/trivial.py`: "
            '`allow if input.user == "alex"` on a second OPA process, decision logs off, '
            "the same client: the physical floor of one OPA round trip from Python). Their "
            "OPA round trips and SQL statements are the app's counters over 6 requests "
            "served in-process after one warm-up request."
        )
    parts += [
        "",
        *(
            ["## Targets of issue 22", "", targets_table(issue22_targets(results, *hot)), ""]
            if hot is not None
            else []
        ),
        "## Targets of the lean read path",
        "",
        targets_table(targets(results, opa_by_c)),
        "",
        "## getRunContext and bare OPA",
        "",
        results_table(results, opa_by_c),
        "",
        *(
            ["## Hot operations", "", operations_table(*hot, opa_by_c), ""]
            if hot is not None
            else []
        ),
        "## Cost per request",
        "",
        costs_table(costs),
        "",
        f"Statements PostgreSQL received for one request of the {max(SIZES):,} case:",
        "",
        statements_table(costs[max(SIZES)]),
        "",
        "OPA's own time per call (the bare OPA inputs above):",
        "",
        opa_table(timers),
        "",
        "## Interpretation",
        "",
        interpretation(results, costs, opa_by_c, timers, profile),
        "",
    ]
    if profile is not None:
        http = next(
            (
                r.percentile(50)
                for r in results
                if r.name == "getRunContext" and r.size == REFERENCE and r.concurrency == 1
            ),
            None,
        )
        parts += ["## Profile", "", profile_section(profile, http), ""]
    return "\n".join(parts)
