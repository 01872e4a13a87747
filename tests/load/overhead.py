"""What metrics and tracing cost getRunContext (issue 12): a part of ``make bench``.

:func:`measure_overhead` serves five variants of the app at once and sends them
interleaved rounds; :func:`overhead_section` is its section of ``docs/benchmarks.md``
(kept last); ``python -m tests.load.overhead`` runs it alone and replaces that section.
The method: ``tests/load/README.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.load.interleave import interleaved_rounds
from tests.load.overhead_servers import MODES, OverheadError, Server, Sink, serve, start_servers
from tests.support.services import OpaServer

__all__ = [
    "MODES",
    "Overhead",
    "add_arguments",
    "measure_overhead",
    "overhead_section",
]

_DESCRIPTIONS = {
    "off": "no metrics, no tracing",
    "off-2": "the same as off, in another process (the noise floor)",
    "metrics": "metrics on, listener running, multiprocess value files",
    "tracing": "tracing on, in-memory exporter, batch processor",
    "both": "metrics and tracing on",
}
HEADING = "## Overhead of metrics and tracing"
METRICS_LIMIT = 0.03
REQUEST_TIMEOUT = 10.0


# ------------------------------------------------------------------------ measurement


@dataclass
class Overhead:
    """Latencies per variant, round by round (the same index is the same round)."""

    rounds: int
    warmup: int
    latencies_ms: dict[str, list[float]]
    checks: list[str] = field(default_factory=list)
    seconds: float = 0.0
    blocks: int = 1

    def p50(self, mode: str) -> float:
        """The median latency of ``mode``."""
        return statistics.median(self.latencies_ms[mode])

    def percentile(self, mode: str, p: float) -> float:
        """The ``p``-th percentile of ``mode`` (nearest rank)."""
        data = sorted(self.latencies_ms[mode])
        return data[min(len(data) - 1, round((len(data) - 1) * p / 100))]

    def ratio(self, mode: str) -> float:
        """p50 of ``mode`` over p50 of ``off``."""
        return self.p50(mode) / self.p50("off")

    def interval(self, mode: str, samples: int = 2000, seed: int = 12) -> tuple[float, float]:
        """95% bootstrap interval of :meth:`ratio`, resampling whole rounds."""
        rng = random.Random(seed)
        base, other = self.latencies_ms["off"], self.latencies_ms[mode]
        count = len(base)
        ratios = []
        for _ in range(samples):
            picks = [rng.randrange(count) for _ in range(count)]
            ratios.append(
                statistics.median(other[i] for i in picks)
                / statistics.median(base[i] for i in picks)
            )
        ratios.sort()
        return ratios[int(0.025 * samples)], ratios[int(0.975 * samples) - 1]

    def paired_ms(self, mode: str) -> float:
        """Median of the per-round differences ``mode`` minus ``off``."""
        return statistics.median(
            a - b for a, b in zip(self.latencies_ms[mode], self.latencies_ms["off"], strict=True)
        )


def _context_count(metrics_url: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = requests.get(metrics_url, timeout=REQUEST_TIMEOUT).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "agent_authz_http_request_duration_seconds_count"
                and sample.labels.get("operation") == "getRunContext"
                and sample.labels.get("status") == "200"
            ):
                return sample.value
    return 0.0


def _block(
    database_url: str,
    opa_url: str,
    path: str,
    headers: dict[str, str],
    rounds: int,
    warmup: int,
    rng: random.Random,
    latencies: dict[str, list[float]],
) -> dict[str, int]:
    """One block: fresh servers, ``warmup`` plus ``rounds`` rounds; returns span counts."""
    sent = warmup + rounds
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as work:
        workdir = Path(work)
        with start_servers(database_url, opa_url, workdir) as servers:
            sessions = {s.mode: requests.Session() for s in servers}
            for session in sessions.values():
                session.trust_env = False

            def context_call(server: Server) -> Callable[[], None]:
                def call() -> None:
                    response = sessions[server.mode].get(
                        server.app.base_url + path, headers=headers, timeout=REQUEST_TIMEOUT
                    )
                    if response.status_code != 200:
                        raise OverheadError(f"{server.mode}: getRunContext {response.status_code}")

                return call

            measured, _capped = interleaved_rounds(
                [context_call(server) for server in servers], rounds, rng, warmup=warmup
            )
            for server, mine in zip(servers, measured, strict=True):
                latencies[server.mode].extend(mine)
            for session in sessions.values():
                session.close()
            for server in servers:
                if server.metrics_url is not None:
                    counted = _context_count(server.metrics_url)
                    if counted != sent:
                        raise OverheadError(f"{server.mode} counted {counted} of {sent}")
        spans: dict[str, int] = {}
        for server in servers:
            if server.mode in ("tracing", "both"):
                if not server.spans_file.exists():
                    raise OverheadError(
                        f"{server.mode} wrote no span count: {server.app.log.read_text()[-2000:]}"
                    )
                counts = json.loads(server.spans_file.read_text())
                if counts["context_requests"] != sent:
                    raise OverheadError(f"{server.mode} traced {counts} for {sent} requests")
                spans[server.mode] = counts["spans"]
    return spans


def measure_overhead(
    database_url: str,
    run_id: str,
    token: str,
    *,
    rounds: int,
    warmup: int,
    blocks: int = 3,
    seed: int = 20251201,
) -> Overhead:
    """Run the interleaved rounds in blocks (module docstring) and check the variants.

    Starts its own OPA (deploy configuration, traces to a discarding sink).

    Raises:
        OverheadError: a server did not start, a request failed, or a variant did not
            count or trace what it served.
    """
    started = time.monotonic()
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    path = f"/api/v1/runs/{run_id}/context"
    latencies: dict[str, list[float]] = {mode: [] for mode in MODES}
    spans = dict.fromkeys(("tracing", "both"), 0)
    sink = Sink()
    opa = OpaServer(env={"OPA_TRACING_ADDRESS": sink.address})
    try:
        opa.start()
        per_block = [rounds // blocks + (1 if i < rounds % blocks else 0) for i in range(blocks)]
        for count in per_block:
            block_spans = _block(
                database_url, opa.url, path, headers, count, warmup, rng, latencies
            )
            for mode, value in block_spans.items():
                spans[mode] += value
    finally:
        opa.stop()
        Path(opa.log_path).unlink(missing_ok=True)
        sink.close()
    sent = rounds + warmup * blocks
    checks = [f"`metrics` and `both` counted every one of their {sent} requests"]
    checks += [
        f"`{mode}` exported {count} spans, {count / sent:.1f} per request"
        for mode, count in spans.items()
    ]
    return Overhead(rounds, warmup, latencies, checks, time.monotonic() - started, blocks)


# ------------------------------------------------------------------------------ report


def overhead_section(result: Overhead) -> str:
    """The markdown section for ``docs/benchmarks.md`` (from :data:`HEADING` on)."""
    lines = [
        HEADING,
        "",
        "Generated by `tests/load/overhead.py` (part of `make bench`; method in "
        f"`tests/load/README.md`). {result.rounds} measured rounds in {result.blocks} blocks, each "
        f"block after {result.warmup} warm-up rounds with freshly started processes; "
        f"{result.seconds:.0f} s. Each round sends one getRunContext of the 100-message "
        "case to each of five server processes of the same app (one uvicorn worker each, "
        "the same database and OPA) in a fresh random order at concurrency 1, so that the "
        "machine's noise hits every variant alike. Tracing exports into an in-memory "
        "exporter behind the scrubbing exporter and a batch processor; OPA, with the "
        "deploy configuration, records its spans for the traced variants and exports them "
        "to a local sink. The interval is a 95% bootstrap interval of the p50 ratio "
        "(rounds resampled); the paired difference is the median of the per-round "
        "differences to `off`.",
        "",
        "| variant | what runs | p50 ms | p95 ms | mean ms | p50 / off p50 | 95% interval "
        "| paired difference ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for mode in MODES:
        if mode == "off":
            ratio, interval, paired = "1.000", "", ""
        else:
            low, high = result.interval(mode)
            ratio = f"{result.ratio(mode):.3f}"
            interval = f"{low:.3f} to {high:.3f}"
            paired = f"{result.paired_ms(mode):+.2f}"
        lines.append(
            f"| `{mode}` | {_DESCRIPTIONS[mode]} | {result.p50(mode):.2f} "
            f"| {result.percentile(mode, 95):.2f} "
            f"| {statistics.fmean(result.latencies_ms[mode]):.2f} | {ratio} | {interval} "
            f"| {paired} |"
        )
    metrics_cost = result.ratio("metrics") - 1
    low, high = result.interval("metrics")
    met = "met" if metrics_cost <= METRICS_LIMIT else "NOT met"
    lines += [
        "",
        f"* Metrics on cost {100 * metrics_cost:+.1f}% of getRunContext's p50 (95% "
        f"interval {100 * (low - 1):+.1f}% to {100 * (high - 1):+.1f}%; target: at most "
        f"{100 * METRICS_LIMIT:.0f}%: {met}). Two identical processes differ by "
        f"{100 * (result.ratio('off-2') - 1):+.1f}% (`off-2`), the resolution of this "
        "measurement on this machine.",
        f"* Tracing on costs {100 * (result.ratio('tracing') - 1):+.1f}%, both "
        f"{100 * (result.ratio('both') - 1):+.1f}%: about nine spans per request (the "
        "request, one per SQL statement, two per OPA call), OPA's own spans included. "
        "Sampling (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`) bounds it in "
        "production.",
        "* Checks: " + "; ".join(result.checks) + ".",
        "",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this part, for ``tests/load/bench.py``'s parser too."""
    parser.add_argument(
        "--overhead-rounds",
        type=int,
        default=1500,
        help="interleaved rounds of the metrics/tracing overhead part; 0 skips it (default 1500)",
    )
    parser.add_argument(
        "--overhead-warmup",
        type=int,
        default=50,
        help="warm-up rounds of the overhead part, per block (default 50)",
    )
    parser.add_argument(
        "--overhead-blocks",
        type=int,
        default=3,
        help="blocks of the overhead part, each with fresh processes (default 3)",
    )


def replace_section(report: str, section: str, tail: str) -> str:
    """``report`` with its overhead section replaced by ``section``, then ``tail``.

    ``tail`` is what ``make bench`` keeps below its marker (``report.kept_tail``); the
    old section runs to that marker, or to the end of a report without one.
    """
    from tests.load.report import KEEP_MARKER

    before_tail = report.split(KEEP_MARKER, 1)[0]
    head = before_tail.split(f"\n{HEADING}\n", 1)[0].rstrip("\n")
    return f"{head}\n\n{section}{tail}"


# -------------------------------------------------------------------------------- main


def _standalone(args: argparse.Namespace) -> int:
    """Measure with the benchmark's world and replace the section of the report."""
    from tests.load.report import OUTPUT, kept_tail
    from tests.load.world import AGENT_TOKEN, REFERENCE, prepare_database
    from tests.support.services import PostgresCluster

    with contextlib.ExitStack() as stack:
        print("starting PostgreSQL ...", file=sys.stderr)
        cluster = PostgresCluster()
        stack.callback(cluster.stop)
        cluster.start()
        database_url, ids = prepare_database(cluster, "overhead")
        print(f"overhead: {args.overhead_rounds} rounds ...", file=sys.stderr)
        result = measure_overhead(
            database_url,
            ids[f"r{REFERENCE}"],
            AGENT_TOKEN,
            rounds=args.overhead_rounds,
            warmup=args.overhead_warmup,
            blocks=args.overhead_blocks,
        )
    section = overhead_section(result)
    print(section)
    if not args.no_write:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        OUTPUT.write_text(replace_section(current, section, kept_tail(OUTPUT)), encoding="utf-8")
        print(f"wrote the overhead section of {OUTPUT}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.load.overhead``: this part alone (or ``--serve MODE``)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.load.overhead", description=(__doc__ or "").splitlines()[0]
    )
    add_arguments(parser)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--serve", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--spans-file", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve, args.spans_file)
    return _standalone(args)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; services stopped", file=sys.stderr)
        sys.exit(130)
    except OverheadError as exc:
        print(f"overhead benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
