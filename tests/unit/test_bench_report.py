"""The benchmark report keeps its sections (``docs/benchmarks.md``), rendered from fixed numbers."""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import pstats

from tests.load import operations
from tests.load.costs import Cost, OpaTimers
from tests.load.measure import HotOperations, Result
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
from tests.load.profiling import Profile
from tests.load.report import render
from tests.load.world import REFERENCE, SIZES

HEADINGS = [
    "# Benchmarks",
    "## Machine",
    "## Method",
    "## Targets of issue 22",
    "## Targets of the lean read path",
    "## getRunContext and bare OPA",
    "## Hot operations",
    "## Cost per request",
    "## Interpretation",
    "## Profile",
]


def _result(name: str, size: int | None, concurrency: int, ms: float) -> Result:
    return Result(name, size, concurrency, [ms, ms * 1.1, ms * 1.3], 3 * ms / 1000)


def _profile() -> Profile:
    profiler = cProfile.Profile()
    profiler.enable()
    sum(range(3))
    profiler.disable()
    return Profile(
        requests=10,
        plain_ms=3.0,
        profiled_ms=5.0,
        stats=pstats.Stats(profiler, stream=io.StringIO()),
        buckets=[("PostgreSQL: psycopg2", 1.0), ("OPA: socket", 0.5), ("app/usecases", 2.0)],
        cumulative=[("app/x.py:1(f)", 1.0, 0.1, 2.0)],
        own=[("app/y.py:2(g)", 2.0, 0.2, 0.3)],
        opa_wait_ms=0.5,
        pg_ms=1.0,
        request_ms=3.5,
        handler_ms=3.0,
        parts=[("Connexion and Starlette middleware", 0.5), ("Use case besides SQL", 0.4)],
    )


def _report() -> str:
    results = [_result(RIGHT_AFTER_LOAD, max(SIZES), 1, 3.0)]
    opa_by_c: dict[int, Result] = {}
    trivial_by_c: dict[int, Result] = {}
    for concurrency in (1, 8):
        results += [_result("getRunContext", size, concurrency, 3.0) for size in SIZES]
        opa_by_c[concurrency] = _result(BARE_DECISION, None, concurrency, 0.5)
        trivial_by_c[concurrency] = _result(TRIVIAL, None, concurrency, 0.3)
        results += [opa_by_c[concurrency], trivial_by_c[concurrency]]
        results.append(_result(BARE_EVALUATE, REFERENCE, concurrency, 0.8))
        results.append(_result(f"{BARE_EVALUATE}, decision logs off", REFERENCE, concurrency, 0.7))
        results.append(_result(FLASK_NAME, REFERENCE, concurrency, 4.0))
    for name, ms in (
        (INTERLEAVED_CONTEXT, 3.0),
        (INTERLEAVED_LARGEST, 3.1),
        (INTERLEAVED_BARE, 0.5),
        (INTERLEAVED_TRIVIAL, 0.3),
        (FLOOR, 1.5),
        (FLOOR_BARE, 0.5),
    ):
        results.append(_result(name, REFERENCE, 1, ms))
    costs = {size: Cost(size, 2, 4, [(0.1, "SELECT 1")], 50, 50, None, 1, 12_000) for size in SIZES}
    timers = [
        OpaTimers("authz/decision", 2000, 0.2, 0.1, 0.05),
        OpaTimers("runcontext/evaluate", 40_000, 0.9, 0.6, 0.2),
    ]
    names = ["list messages, first page", sorted(operations.DENIED)[0]]
    hot: HotOperations = (
        [_result(name, None, c, 2.0) for name in names for c in (1, 8)],
        dict.fromkeys(names, (1.0, 2.0)),
        trivial_by_c,
        {names[0]: [_result(names[0], None, 1, 2.0), opa_by_c[1], trivial_by_c[1]]},
    )
    args = argparse.Namespace(
        without_statistics=False,
        warmup=5,
        requests_c1=3,
        requests_c8=3,
        case_seconds=1.0,
        interleaved_rounds=3,
        operation_rounds=3,
    )
    started = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.UTC)
    return render(
        started, {"cores": "2"}, args, results, costs, opa_by_c, timers, _profile(), 1.0, hot=hot
    )


def test_the_report_has_its_sections_in_order() -> None:
    headings = [line for line in _report().splitlines() if line.startswith("#")]

    assert headings == HEADINGS
