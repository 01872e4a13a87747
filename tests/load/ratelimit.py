"""What the rate limiter costs a request, in memory and on Redis (issue 25).

A part of ``make bench`` (``tests/load/parts.py``): it calls :func:`measure` with the
benchmark's database and world and puts :func:`section` into ``docs/benchmarks.md``
before the overhead section. ``python -m tests.load.ratelimit`` runs this part alone (its own
PostgreSQL, OPA, Redis and the benchmark world) and replaces that section.

Method, as ``tests/load/overhead.py`` does for metrics and tracing:

* Three server processes of the same app, started at once, against the same database
  and OPA, one uvicorn worker each, log level WARNING: ``off`` (every class at 0: the
  limiter asks no storage), ``memory`` (``rate_limit.storage`` ``memory://``) and
  ``redis`` (a local ``redis-server`` on loopback, what ``make run`` starts). The
  limits are set far above what the run sends, so every request is admitted and
  each one costs the limiter exactly one window update (the failed-authentication
  window is not read: no address failed).
* Interleaved rounds at concurrency 1: each round sends one getRunContext (the 100-
  message case) to every server in a fresh random order, each over its own keep-alive
  connection, so the machine's load hits all variants alike.
* Per variant p50 and p95, and the median of the per-round differences to ``off``.
* Beside it, the limiter alone on one event loop (``RateLimiter.check``, no HTTP):
  p50 and p99 of a check in memory and on the same Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

from app.config import load_settings
from app.http.ratelimit import MEMORY_STORAGE, RateLimiter
from tests.load.interleave import interleaved_rounds
from tests.support.services import AppProcess, OpaServer, RedisServer

__all__ = ["HEADING", "RateLimitCost", "add_arguments", "measure", "section"]

HEADING = "## What the rate limiter costs: memory against Redis"
MODES = ("off", "memory", "redis")
_DESCRIPTIONS = {
    "off": "every class at 0: no storage is asked",
    "memory": "`memory://`: the window in the worker's memory",
    "redis": "`redis://` on loopback: the window shared through Redis",
}
# High enough that nothing in a run is refused.
_FIGURE = "100000000"
REQUEST_TIMEOUT = 30


class RateLimitBenchError(RuntimeError):
    """A server did not start or a request failed."""


@dataclass
class RateLimitCost:
    """Latencies per variant (the same index is the same round) and of the bare check."""

    rounds: int
    latencies_ms: dict[str, list[float]]
    check_us: dict[str, list[float]]
    seconds: float
    # When and under what load it ran (the machine is shared; the load moves the ms).
    started: str = ""
    load: str = ""

    def p(self, mode: str, q: float) -> float:
        """The ``q``-th percentile of ``mode`` in ms (nearest rank)."""
        data = sorted(self.latencies_ms[mode])
        return data[min(len(data) - 1, round((len(data) - 1) * q / 100))]

    def paired_ms(self, mode: str) -> float:
        """Median of the per-round differences ``mode`` minus ``off``."""
        return statistics.median(
            a - b for a, b in zip(self.latencies_ms[mode], self.latencies_ms["off"], strict=True)
        )


def _env(database_url: str, opa_url: str, mode: str, redis_url: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "CONFIG_FILE" and not key.startswith(("OTEL_", "PROMETHEUS_", "RATE_LIMIT_"))
    }
    figure = "0" if mode == "off" else _FIGURE
    env.update(
        {
            "DATABASE_URL": database_url,
            "OPA_URL": opa_url,
            "LOG_LEVEL": "WARNING",
            "SERVER_WORKERS": "1",
            "METRICS_PORT": "0",
            "PYTHONHASHSEED": "0",
            "RATE_LIMIT_STORAGE": redis_url if mode == "redis" else MEMORY_STORAGE,
            "RATE_LIMIT_AGENT_RUNTIME_PER_MINUTE": figure,
            "RATE_LIMIT_FAILED_AUTH_PER_MINUTE": figure,
        }
    )
    return env


@contextlib.contextmanager
def _servers(
    database_url: str, opa_url: str, redis_url: str, workdir: Path
) -> Iterator[dict[str, AppProcess]]:
    with contextlib.ExitStack() as stack:
        servers: dict[str, AppProcess] = {}
        for mode in MODES:
            app = AppProcess.start(
                ("app", "serve"),
                _env(database_url, opa_url, mode, redis_url),
                workdir / f"server-{mode}.log",
                name=mode,
            )
            stack.callback(app.stop)
            servers[mode] = app
        for app in servers.values():
            try:
                app.wait_ready()
            except Exception as exc:
                raise RateLimitBenchError(str(exc)) from exc
        yield servers


def _bare_checks(redis_url: str, count: int) -> dict[str, list[float]]:
    """Microseconds per ``RateLimiter.check`` in memory and on Redis, one event loop."""

    async def timed(url: str) -> list[float]:
        settings = load_settings(environ={}).replace(
            **{"rate_limit.storage": url, "rate_limit.chat.per_minute": int(_FIGURE)}
        )
        limiter = RateLimiter(settings)
        keys = [str(uuid.uuid4()) for _ in range(50)]
        for index in range(200):
            await limiter.check("chat", keys[index % len(keys)])
        spent: list[float] = []
        for index in range(count):
            begin = time.perf_counter()
            await limiter.check("chat", keys[index % len(keys)])
            spent.append((time.perf_counter() - begin) * 1e6)
        await limiter.aclose()
        return spent

    return {"memory": asyncio.run(timed(MEMORY_STORAGE)), "redis": asyncio.run(timed(redis_url))}


def measure(
    database_url: str,
    run_id: str,
    token: str,
    *,
    rounds: int,
    warmup: int = 50,
    seed: int = 20251225,
) -> RateLimitCost:
    """Start OPA, Redis and the three servers; run the interleaved rounds (module doc).

    Raises:
        RateLimitBenchError: a server did not start or a request did not answer 200.
    """
    started = time.monotonic()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_at_start = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    path = f"/api/v1/runs/{run_id}/context"
    headers = {"Authorization": f"Bearer {token}"}
    with contextlib.ExitStack() as stack:
        opa = OpaServer()
        stack.callback(lambda: Path(opa.log_path).unlink(missing_ok=True))
        stack.callback(opa.stop)
        opa.start()
        redis = RedisServer()
        stack.callback(redis.close)
        redis.start()
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-rl-")))
        servers = stack.enter_context(_servers(database_url, opa.url, redis.url, workdir))
        sessions = {mode: stack.enter_context(requests.Session()) for mode in MODES}

        def call(mode: str) -> Callable[[], None]:
            def get() -> None:
                response = sessions[mode].get(
                    servers[mode].base_url + path, headers=headers, timeout=REQUEST_TIMEOUT
                )
                if response.status_code != 200:
                    raise RateLimitBenchError(f"{mode}: getRunContext {response.status_code}")

            return get

        measured, _capped = interleaved_rounds(
            [call(mode) for mode in MODES], rounds, random.Random(seed), warmup=warmup
        )
        checks = _bare_checks(redis.url, max(rounds, 1000))
    return RateLimitCost(
        rounds,
        dict(zip(MODES, measured, strict=True)),
        checks,
        time.monotonic() - started,
        when,
        load_at_start,
    )


def _percentile(data: list[float], q: float) -> float:
    ordered = sorted(data)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * q / 100))]


def section(result: RateLimitCost) -> str:
    """The markdown section for ``docs/benchmarks.md`` (from :data:`HEADING` on)."""
    lines = [
        HEADING,
        "",
        "Generated by `tests/load/ratelimit.py` (part of `make bench`; method in its "
        f"docstring) on {result.started}, load average at start {result.load}. "
        f"{result.rounds} interleaved rounds, {result.seconds:.0f} s: each round "
        "sends one getRunContext of the 100-message case to each of three server "
        "processes of the same app (one uvicorn worker each, the same database and OPA) in "
        "a fresh random order at concurrency 1. Nothing is refused; each request costs the "
        "limiter one update of its principal's window (ADR 0019).",
        "",
        "| variant | what runs | p50 ms | p95 ms | paired difference to off, ms |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for mode in MODES:
        paired = "" if mode == "off" else f"{result.paired_ms(mode):+.3f}"
        lines.append(
            f"| `{mode}` | {_DESCRIPTIONS[mode]} | {result.p(mode, 50):.2f} "
            f"| {result.p(mode, 95):.2f} | {paired} |"
        )
    lines += [
        "",
        "The limiter alone (`RateLimiter.check` awaited on one event loop, no HTTP, "
        f"{len(result.check_us['memory'])} checks over 50 principals):",
        "",
        "| storage | p50 µs | p99 µs |",
        "| --- | ---: | ---: |",
    ]
    for mode, spent in result.check_us.items():
        lines.append(f"| `{mode}` | {_percentile(spent, 50):.0f} | {_percentile(spent, 99):.0f} |")
    redis_cost = result.paired_ms("redis") - result.paired_ms("memory")
    lines += [
        "",
        f"* Sharing the window through Redis adds {redis_cost:+.2f} ms per request over "
        "the memory window (paired medians): one round trip to Redis (one `EVALSHA`) "
        "awaited on the event loop, so the worker serves other requests meanwhile. A "
        "refusal costs a second round trip (the window's reset time for `Retry-After`).",
        "* The memory window is not free either: besides the update, the library's asyncio "
        "memory storage sweeps expired entries in a background task that hands each key "
        "to a worker thread.",
        "* Valid tokens never wait for the failed-authentication window: it is read only "
        "for an address that failed authentication in that process within the minute.",
        "",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this part, for ``tests/load/bench.py``'s parser too."""
    parser.add_argument(
        "--rate-limit-rounds",
        type=int,
        default=600,
        help="interleaved rounds of the rate-limit part; 0 skips it (default 600)",
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.load.ratelimit``: this part alone with the benchmark's world."""
    from tests.load.report import OUTPUT, replace_part_section
    from tests.load.world import AGENT_TOKEN, REFERENCE, prepare_database
    from tests.support.services import PostgresCluster

    parser = argparse.ArgumentParser(
        prog="python -m tests.load.ratelimit", description=(__doc__ or "").splitlines()[0]
    )
    add_arguments(parser)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        print("starting PostgreSQL ...", file=sys.stderr)
        cluster = PostgresCluster()
        stack.callback(cluster.stop)
        cluster.start()
        database_url, ids = prepare_database(cluster, "ratelimit")
        print(f"rate limiter: {args.rate_limit_rounds} rounds ...", file=sys.stderr)
        result = measure(
            database_url, ids[f"r{REFERENCE}"], AGENT_TOKEN, rounds=args.rate_limit_rounds
        )
    text = section(result)
    print(text)
    if not args.no_write:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        OUTPUT.write_text(replace_part_section(current, HEADING, text), encoding="utf-8")
        print(f"wrote the rate-limit section of {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; services stopped", file=sys.stderr)
        sys.exit(130)
    except RateLimitBenchError as exc:
        print(f"rate-limit benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
