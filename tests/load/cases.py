"""The measurement sequence of ``make bench``: every case of the report, in order."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from app.config import Settings, load_settings
from app.main import create_app
from tests.load import floor, operations
from tests.load.costs import Cost, OpaTimers, measure_costs, opa_timers
from tests.load.flaskapp import FLASK_COMMAND
from tests.load.measure import (
    CONCURRENCIES,
    DECISION_PATH,
    EVALUATE_PATH,
    BenchError,
    HotOperations,
    Result,
    context_call,
    opa_call,
    run_interleaved,
    run_load,
)
from tests.load.names import (
    BARE_DECISION,
    BARE_EVALUATE,
    FLASK_NAME,
    FLOOR,
    FLOOR_BARE,
    INTERLEAVED_BARE,
    INTERLEAVED_CONTEXT,
    INTERLEAVED_LARGEST,
    INTERLEAVED_TRIVIAL,
    RIGHT_AFTER_LOAD,
    TRIVIAL,
)
from tests.load.processes import RATE_CLASSES, app_process, app_thread, opa_without_decision_logs
from tests.load.profiling import Profile, asgi_get, profile_case
from tests.load.trivial import TRIVIAL_INPUT, TRIVIAL_PATH, trivial_opa
from tests.load.world import REFERENCE, SIZES
from tests.support.services import PostgresCluster


@dataclass
class Measured:
    """What the cases of the report measured (everything but the plugged-in parts)."""

    results: list[Result]
    costs: dict[int, Cost]
    opa_by_c: dict[int, Result]
    timers: list[OpaTimers]
    profile: Profile | None
    hot: HotOperations
    # The OPA inputs the app sent for one request of the reference case, per path.
    inputs: dict[str, dict[str, Any]]


def measure(
    stack: contextlib.ExitStack,
    args: argparse.Namespace,
    cluster: PostgresCluster,
    opa_url: str,
    database_url: str,
    ids: dict[str, str],
) -> Measured:
    """Every case of the report, in order, against the loaded world (``stack`` closes what
    is started here). Raises BenchError when a case cannot run as designed."""
    runs = {size: ids[f"r{size}"] for size in SIZES}
    settings: Settings = load_settings(environ={}).replace(
        **{
            "database.url": database_url,
            "opa.url": opa_url,
            **{f"rate_limit.{name}.per_minute": 0 for name in RATE_CLASSES},
        }
    )
    hot = operations.operations(ids, runs[REFERENCE])

    with app_process(database_url, opa_url) as base_url:
        # First, before anything else has read: the largest thread right after the
        # load, on connections whose statements are prepared (and planned) now.
        print(f"{RIGHT_AFTER_LOAD} ...", file=sys.stderr)
        after_load = context_call(base_url, runs[max(SIZES)])
        run_load("warm-up", max(SIZES), after_load, args.warmup, 1, args.case_seconds)
        results = [
            run_load(
                RIGHT_AFTER_LOAD,
                max(SIZES),
                after_load,
                args.requests_c1,
                1,
                args.case_seconds,
            )
        ]

        print("counting round trips in-process ...", file=sys.stderr)
        local_app = create_app(settings)
        stack.callback(local_app.services.close)
        costs = measure_costs(local_app, cluster, runs)
        with app_thread(local_app) as local_url:
            op_costs = operations.count_costs(local_app, local_url, hot)
        inputs = costs[REFERENCE].inputs
        timers = [
            opa_timers(opa_url, path, inputs[path]) for path in (DECISION_PATH, EVALUATE_PATH)
        ]

        results += _measure_context(base_url, "getRunContext", runs, SIZES, args)
        trivial_url = stack.enter_context(trivial_opa())
        bare, opa_by_c, trivial_by_c = _measure_bare(opa_url, trivial_url, inputs, args)
        results += bare
        floors = [
            (INTERLEAVED_BARE, opa_call(opa_url, DECISION_PATH, inputs[DECISION_PATH])),
            (INTERLEAVED_TRIVIAL, opa_call(trivial_url, TRIVIAL_PATH, TRIVIAL_INPUT)),
        ]
        op_results, op_interleaved = _measure_operations(base_url, hot, args, floors)
        if args.interleaved_rounds > 0:
            results += _measure_interleaved(base_url, runs, floors, args)
            print(f"{FLOOR} ...", file=sys.stderr)
            results += run_floor(
                settings,
                runs[REFERENCE],
                inputs[DECISION_PATH],
                args.interleaved_rounds,
                args.case_seconds,
            )
        results += _measure_quiet_evaluate(inputs[EVALUATE_PATH], args)

    if not args.no_flask:
        with app_process(database_url, opa_url, FLASK_COMMAND) as base_url:
            results += _measure_context(base_url, FLASK_NAME, runs, (REFERENCE,), args)

    profile = None
    if args.profile_requests > 0:
        print(f"profiling {REFERENCE} messages at c=1 in-process ...", file=sys.stderr)
        profile = profile_case(local_app, runs[REFERENCE], args.profile_requests)
        if args.profile_dump is not None:
            profile.stats.dump_stats(str(args.profile_dump))
    return Measured(
        results=results,
        costs=costs,
        opa_by_c=opa_by_c,
        timers=timers,
        profile=profile,
        hot=(op_results, op_costs, trivial_by_c, op_interleaved),
        inputs=inputs,
    )


def _measure_bare(
    opa_url: str, trivial_url: str, inputs: dict[str, dict[str, Any]], args: argparse.Namespace
) -> tuple[list[Result], dict[int, Result], dict[int, Result]]:
    """The bare OPA decision, the batch evaluation and the trivial policy at each
    concurrency; the results, then the decision's and the trivial policy's by concurrency."""
    results: list[Result] = []
    opa_by_c: dict[int, Result] = {}
    trivial_by_c: dict[int, Result] = {}
    bare = (
        (BARE_DECISION, opa_url, DECISION_PATH, inputs[DECISION_PATH]),
        (BARE_EVALUATE, opa_url, EVALUATE_PATH, inputs[EVALUATE_PATH]),
        (TRIVIAL, trivial_url, TRIVIAL_PATH, TRIVIAL_INPUT),
    )
    for name, url, path, policy_input in bare:
        call = opa_call(url, path, policy_input)
        run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
        for concurrency in CONCURRENCIES:
            total = args.requests_c1 if concurrency == 1 else args.requests_c8
            print(f"{name} c={concurrency} ...", file=sys.stderr)
            result = run_load(
                name,
                REFERENCE if path == EVALUATE_PATH else None,
                call,
                total,
                concurrency,
                args.case_seconds,
            )
            results.append(result)
            if path == DECISION_PATH:
                opa_by_c[concurrency] = result
            elif path == TRIVIAL_PATH:
                trivial_by_c[concurrency] = result
    return results, opa_by_c, trivial_by_c


def _measure_interleaved(
    base_url: str,
    runs: dict[int, str],
    floors: list[tuple[str, Callable[[requests.Session], None]]],
    args: argparse.Namespace,
) -> list[Result]:
    """getRunContext of the reference and the largest case interleaved with the floors."""
    print(f"{INTERLEAVED_CONTEXT} ...", file=sys.stderr)
    results = run_interleaved(
        [
            (INTERLEAVED_CONTEXT, context_call(base_url, runs[REFERENCE])),
            (INTERLEAVED_LARGEST, context_call(base_url, runs[max(SIZES)])),
            *floors,
        ],
        REFERENCE,
        args.interleaved_rounds,
        args.case_seconds,
    )
    for result in results:
        if result.name == INTERLEAVED_LARGEST:
            result.size = max(SIZES)
    return results


def _measure_quiet_evaluate(
    evaluate_input: dict[str, Any], args: argparse.Namespace
) -> list[Result]:
    """The bare batch evaluation once more, on a second OPA with decision logs off."""
    results: list[Result] = []
    with opa_without_decision_logs() as quiet_url:
        name = f"{BARE_EVALUATE}, decision logs off"
        call = opa_call(quiet_url, EVALUATE_PATH, evaluate_input)
        run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
        for concurrency in CONCURRENCIES:
            total = args.requests_c1 if concurrency == 1 else args.requests_c8
            print(f"{name} c={concurrency} ...", file=sys.stderr)
            results.append(run_load(name, REFERENCE, call, total, concurrency, args.case_seconds))
    return results


def run_floor(
    settings: Settings,
    run_id: str,
    decision_input: dict[str, Any],
    rounds: int,
    max_seconds: float,
) -> list[Result]:
    """The I/O floor of a read (:mod:`tests.load.floor`) interleaved with a bare decision.

    A fresh app serves two reads in-process to record their round trips; the floor
    replays the second one's. Raises BenchError when the recording fails.
    """
    app = create_app(settings)
    try:
        path = f"/api/v1/runs/{run_id}/context"
        try:
            recording = floor.record_read(app, lambda: asgi_get(app, path))
        except RuntimeError as exc:
            raise BenchError(f"recording the floor failed: {exc}") from exc
    finally:
        app.services.close()
    opa_url = settings.text("opa.url")
    with floor.FloorRead(settings.text("database.url"), opa_url, recording) as replay:
        return run_interleaved(
            [
                (FLOOR, lambda _session: replay()),
                (FLOOR_BARE, opa_call(opa_url, DECISION_PATH, decision_input)),
            ],
            REFERENCE,
            rounds,
            max_seconds,
        )


def _measure_context(
    base_url: str, name: str, runs: dict[int, str], sizes: tuple[int, ...], args: argparse.Namespace
) -> list[Result]:
    results: list[Result] = []
    for size in sizes:
        call = context_call(base_url, runs[size])
        run_load("warm-up", size, call, args.warmup, 1, args.case_seconds)
        run_load("warm-up", size, call, args.warmup, 8, args.case_seconds)
    for concurrency in CONCURRENCIES:
        total = args.requests_c1 if concurrency == 1 else args.requests_c8
        for size in sizes:
            print(f"{name} size {size} c={concurrency} ...", file=sys.stderr)
            results.append(
                run_load(
                    name,
                    size,
                    context_call(base_url, runs[size]),
                    total,
                    concurrency,
                    args.case_seconds,
                )
            )
    return results


def _measure_operations(
    base_url: str,
    hot: list[operations.Operation],
    args: argparse.Namespace,
    floors: list[tuple[str, Callable[[requests.Session], None]]],
) -> tuple[list[Result], dict[str, list[Result]]]:
    """Each hot operation: warm-up, then concurrency 1 and 8 like the context cases, and
    ``--operation-rounds`` rounds interleaved with the two floors (bare decision,
    trivial policy), whose ratios do not move with the shared host's load."""
    results: list[Result] = []
    interleaved: dict[str, list[Result]] = {}
    for op in hot:
        call = operations.operation_call(base_url, op)
        run_load("warm-up", None, call, args.warmup, 1, args.case_seconds)
        for concurrency in CONCURRENCIES:
            total = args.requests_c1 if concurrency == 1 else args.requests_c8
            print(f"{op.name} c={concurrency} ...", file=sys.stderr)
            results.append(run_load(op.name, None, call, total, concurrency, args.case_seconds))
        if args.operation_rounds > 0:
            print(f"{op.name}, interleaved ...", file=sys.stderr)
            interleaved[op.name] = run_interleaved(
                [(op.name, call), *floors], None, args.operation_rounds, args.case_seconds
            )
    return results, interleaved
