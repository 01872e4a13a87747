"""What the OPA transport costs per call: urllib3's pool against the old hand-written one.

Part of ``make bench`` once wired in (``run`` and ``section``, as the other parts);
``python -m tests.load.transport`` runs this part alone and replaces its section of
``docs/benchmarks.md``.

Method: one real OPA (``.bin/opa run --server`` on a free port serving ``policies/``
with the working-tree configuration, decision logs on) and the app's own client,
:class:`~app.opa_client.OpaClient`, sending what the policy gateway sends: the
``authz/decision`` entry point with ``?provenance=true``, a correlation id and a
realistic decision input (the fact bundle of a channel listing). The clients differ
only in their pool:

* ``baseline``: the hand-written keep-alive pool on httptools the app ran before
  issue 23 (``tests/load/transport_baseline.py``, kept for this measurement only);
* ``baseline-2``: the same client again (the noise floor of a paired difference);
* ``urllib3``: the app's pool today (:func:`app.opa_client.default_pool`).

Interleaved rounds at concurrency 1 (``tests/load/interleave.py``): every round calls
each variant once in a fresh random order, so the shared host's load hits all alike.
Reported per variant: wall-clock p50, p90 and p99, the thread's CPU time per call, and
the paired difference to ``baseline`` (the median of the per-round differences).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.opa_client import OpaClient
from app.policy.results import parse_decision
from tests.load.interleave import interleaved_rounds
from tests.load.provenance import synthetic_input
from tests.load.transport_baseline import KeepAlivePool
from tests.support.services import OpaServer

__all__ = ["HEADING", "LIMIT_MS", "Transport", "add_arguments", "measure", "run", "section"]

HEADING = "## The OPA transport: urllib3's pool against the hand-written pool (issue 23)"
DECISION = "authz/decision"
CORRELATION_ID = "bench-transport-0001"
# Issue 23: a library costing more than this per call must be chosen knowingly (ADR 0021).
LIMIT_MS = 0.2
VARIANTS = ("baseline", "baseline-2", "urllib3")
_DESCRIPTIONS = {
    "baseline": "hand-written keep-alive pool, httptools parser (before issue 23)",
    "baseline-2": "the same again (the noise floor of a paired difference)",
    "urllib3": "urllib3 `HTTPConnectionPool` (`app.opa_client.default_pool`, today)",
}
_TIMEOUT = 5.0


@dataclass
class Transport:
    """Per variant the wall-clock latencies and the thread CPU time of each call (ms)."""

    latencies: dict[str, list[float]]
    cpu: dict[str, list[float]]
    rounds: int
    warmup: int
    seconds: float
    stopped_early: bool
    load_before: float
    load_after: float

    def paired(self, variant: str) -> float:
        """The median of the per-round differences to ``baseline`` (ms)."""
        baseline = self.latencies["baseline"]
        return statistics.median(
            mine - base for mine, base in zip(self.latencies[variant], baseline, strict=True)
        )


def _timed(call: Callable[[], None], cpu: list[float]) -> Callable[[], None]:
    """``call``, also appending the thread CPU time it took (ms) to ``cpu``."""

    def timed() -> None:
        begin = time.thread_time()
        call()
        cpu.append((time.thread_time() - begin) * 1000)

    return timed


def _decide(client: OpaClient, decision_input: Any) -> Callable[[], Any]:
    def decide() -> Any:
        answer = client.evaluate(DECISION, decision_input, correlation_id=CORRELATION_ID)
        return parse_decision(answer.result)

    return decide


def measure(
    opa_url: str, decision_input: Any, *, rounds: int, warmup: int, seed: int = 20261202
) -> Transport:
    """Measure the variants against the OPA at ``opa_url``, interleaved.

    Raises:
        AssertionError: the two pools do not get the same decision.
        OpaUnavailable: a call failed (one failed call ends the measurement).
    """
    started = time.monotonic()
    load_before = os.getloadavg()[0]
    address = urlsplit(opa_url)
    clients = {
        "baseline": OpaClient(
            opa_url,
            timeout=_TIMEOUT,
            pool=KeepAlivePool(
                address.hostname or "127.0.0.1", address.port or 80, maxsize=1, timeout=_TIMEOUT
            ),
        ),
        "urllib3": OpaClient(opa_url, timeout=_TIMEOUT, pool_size=1),
    }
    clients["baseline-2"] = clients["baseline"]
    try:
        decisions = {variant: _decide(clients[variant], decision_input) for variant in VARIANTS}
        first = decisions["baseline"]()
        assert all(decide() == first for decide in decisions.values()), "the pools disagree"
        cpu: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
        latencies, stopped = interleaved_rounds(
            [_timed(decisions[variant], cpu[variant]) for variant in VARIANTS],
            rounds,
            random.Random(seed),
            warmup=warmup,
            max_seconds=180.0,
        )
    finally:
        for client in clients.values():
            client.close()
    measured = len(latencies[0])
    return Transport(
        latencies=dict(zip(VARIANTS, latencies, strict=True)),
        # The warm-up calls' CPU times come first: keep the measured rounds' only.
        cpu={variant: values[len(values) - measured :] for variant, values in cpu.items()},
        rounds=measured,
        warmup=warmup,
        seconds=time.monotonic() - started,
        stopped_early=stopped,
        load_before=load_before,
        load_after=os.getloadavg()[0],
    )


def run(opa_url: str, args: argparse.Namespace, decision_input: Any = None) -> Transport | None:
    """This part for ``make bench``: measure against ``opa_url`` with ``decision_input``
    (by default a synthetic input of the fact bundle's shape); None when skipped."""
    if args.transport_rounds <= 0:
        return None
    print(f"OPA transport: {args.transport_rounds} rounds ...", file=sys.stderr)
    return measure(
        opa_url,
        synthetic_input() if decision_input is None else decision_input,
        rounds=args.transport_rounds,
        warmup=args.transport_warmup,
    )


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def section(result: Transport) -> str:
    """The markdown section for ``docs/benchmarks.md`` (from :data:`HEADING` on)."""
    lines = [
        HEADING,
        "",
        "Generated by `tests/load/transport.py` (part of `make bench`; method in its "
        f"docstring). {result.rounds} measured rounds after {result.warmup} warm-up rounds, "
        f"{result.seconds:.0f} s"
        + (" (stopped at the time cap)" if result.stopped_early else "")
        + f", load average {result.load_before:.2f} before and {result.load_after:.2f} "
        "after. Each round sends `authz/decision` with `?provenance=true`, a correlation id "
        "and the same decision input once per variant, in a fresh random order, at "
        "concurrency 1, through `OpaClient` to one real OPA; only the pool differs.",
        "",
        "| variant | pool | p50 ms | p90 ms | p99 ms | CPU ms per call (p50) "
        "| paired difference to baseline ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for variant in VARIANTS:
        values = result.latencies[variant]
        difference = "" if variant == "baseline" else f"{result.paired(variant):+.3f}"
        lines.append(
            f"| `{variant}` | {_DESCRIPTIONS[variant]} | {statistics.median(values):.3f} "
            f"| {_percentile(values, 0.90):.3f} | {_percentile(values, 0.99):.3f} "
            f"| {statistics.median(result.cpu[variant]):.3f} | {difference} |"
        )
    cost = result.paired("urllib3")
    cpu_cost = statistics.median(result.cpu["urllib3"]) - statistics.median(result.cpu["baseline"])
    over = "more" if cost > LIMIT_MS else "not more"
    lines += [
        "",
        f"* urllib3's pool costs {cost:+.3f} ms per call (paired median; the noise floor, "
        f"baseline against itself, is {result.paired('baseline-2'):+.3f} ms) and "
        f"{cpu_cost:+.3f} ms of CPU: {over} than issue 23's {LIMIT_MS} ms. A context read "
        "makes two OPA calls.",
        "* The app uses urllib3's pool whatever the tracing setting, knowingly "
        "(`docs/adr/0021-one-opa-transport.md`): one code path, traced or not, and no HTTP "
        "parser or pool of our own.",
        "",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this part, for ``tests/load/bench.py``'s parser too."""
    parser.add_argument(
        "--transport-rounds",
        type=int,
        default=3000,
        help="interleaved rounds of the OPA transport part; 0 skips it (default 3000)",
    )
    parser.add_argument(
        "--transport-warmup",
        type=int,
        default=200,
        help="warm-up rounds of the OPA transport part (default 200)",
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.load.transport``: this part alone, its section replaced."""
    from tests.load.report import OUTPUT, replace_part_section

    parser = argparse.ArgumentParser(
        prog="python -m tests.load.transport", description=(__doc__ or "").splitlines()[0]
    )
    add_arguments(parser)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    opa = OpaServer().start()
    try:
        result = run(opa.url, args)
    finally:
        opa.stop()
    if result is None:
        return 0
    report = section(result)
    print(report)
    if not args.no_write:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        OUTPUT.write_text(replace_part_section(current, HEADING, report), encoding="utf-8")
        print(f"wrote the OPA transport section of {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
