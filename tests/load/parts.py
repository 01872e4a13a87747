"""The parts of ``make bench`` that measure on their own and add a section to the report.

**Where a part plugs in: :data:`PARTS`.** A part is a :class:`Part`: its options
(``add_arguments``, also shown by ``python -m tests.load.bench --help``), ``run``
(called once after the main cases with the :class:`BenchRun` and the parsed options;
``None`` when its options skip it) and ``section`` (the markdown that ``run``'s result
adds to ``docs/benchmarks.md``). Parts run in the order of :data:`PARTS`, and their
sections follow the main report in that order, each after a blank line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tests.load import bounds, overhead, provenance, ratelimit, transport
from tests.support.services import PostgresCluster

__all__ = ["PARTS", "BenchRun", "Part", "add_arguments", "run_parts"]

R = TypeVar("R")


@dataclass(frozen=True)
class BenchRun:
    """What the main run hands every part: its services and the loaded world.

    Attributes:
        cluster: the throwaway PostgreSQL cluster (a part may create its own database).
        opa_url: the OPA serving ``policies/``.
        database_url: the database with the benchmark world.
        run_id: the run of the reference case (100 earlier messages).
        token: the agent token that reads that run's context.
        decision_input: the ``authz/decision`` input the app sent for that request.
    """

    cluster: PostgresCluster
    opa_url: str
    database_url: str
    run_id: str
    token: str
    decision_input: dict[str, Any]


@dataclass(frozen=True)
class Part(Generic[R]):
    """One part of the benchmark: its options, its measurement and its section."""

    name: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[BenchRun, argparse.Namespace], R | None]
    section: Callable[[R], str]


def _rate_limit(bench: BenchRun, args: argparse.Namespace) -> ratelimit.RateLimitCost | None:
    if args.rate_limit_rounds <= 0:
        return None
    print(
        f"rate limiter, memory against Redis, {args.rate_limit_rounds} rounds ...", file=sys.stderr
    )
    return ratelimit.measure(
        bench.database_url, bench.run_id, bench.token, rounds=args.rate_limit_rounds
    )


def _bounds(bench: BenchRun, args: argparse.Namespace) -> bounds.Bounds | None:
    return bounds.run(bench.cluster, bench.opa_url, args)


def _provenance(bench: BenchRun, args: argparse.Namespace) -> provenance.Provenance | None:
    if args.provenance_rounds <= 0:
        return None
    print(f"policy revision, {args.provenance_rounds} rounds ...", file=sys.stderr)
    return provenance.measure_provenance(
        bench.decision_input, rounds=args.provenance_rounds, warmup=args.provenance_warmup
    )


def _transport(bench: BenchRun, args: argparse.Namespace) -> transport.Transport | None:
    return transport.run(bench.opa_url, args, bench.decision_input)


def _overhead(bench: BenchRun, args: argparse.Namespace) -> overhead.Overhead | None:
    if args.overhead_rounds <= 0:
        return None
    print(f"overhead of metrics and tracing, {args.overhead_rounds} rounds ...", file=sys.stderr)
    return overhead.measure_overhead(
        bench.database_url,
        bench.run_id,
        bench.token,
        rounds=args.overhead_rounds,
        warmup=args.overhead_warmup,
        blocks=args.overhead_blocks,
    )


# ---------------------------------------------------------------- the parts, in order
# A new part: a module with its measurement and section, and one line here (with a
# small adapter like the ones above when its functions take other arguments). The
# overhead section stays last: `python -m tests.load.overhead` replaces it at the end.
PARTS: tuple[Part[Any], ...] = (
    Part("rate limiter (issue 25)", ratelimit.add_arguments, _rate_limit, ratelimit.section),
    Part("worst requests (issue 19)", bounds.add_arguments, _bounds, bounds.section),
    Part(
        "policy revision (issue 24)",
        provenance.add_arguments,
        _provenance,
        provenance.provenance_section,
    ),
    Part("OPA transport (issue 23)", transport.add_arguments, _transport, transport.section),
    Part(
        "metrics and tracing (issue 12)",
        overhead.add_arguments,
        _overhead,
        overhead.overhead_section,
    ),
)
# ------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every part's options, in the order of :data:`PARTS`."""
    for part in PARTS:
        part.add_arguments(parser)


def run_parts(bench: BenchRun, args: argparse.Namespace) -> str:
    """Run every part in order; the sections of those that ran, to append to the report."""
    sections = ""
    for part in PARTS:
        result = part.run(bench, args)
        if result is not None:
            sections += "\n" + part.section(result)
    return sections
