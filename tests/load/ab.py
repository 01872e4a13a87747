"""A/B of two checkouts of the service, request by request: ``python -m tests.load.ab
--before DIR [--after DIR]``, for a change that must be "no slower".

Serves both checkouts at once (each with its own ``.venv``) on one world and one OPA,
sends each operation to both in the same shuffled rounds, and prints their latencies
side by side with each side's OPA calls, SQL statements and function calls per request.
Method and options: ``tests/load/README.md``, ``--help``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

from app.logs import configure_logging
from tests.load import operations
from tests.load.interleave import interleaved_rounds
from tests.load.measure import BenchError, context_call, keepalive_session
from tests.load.world import REFERENCE, prepare_database
from tests.support.served import local_sources, one_worker_env
from tests.support.services import REPO_ROOT, AppProcess, ServiceError, free_port

CONTEXT = "getRunContext"
OPERATIONS = (
    "relayed post",
    "relayed list",
    "post a message, new",
    "list messages, first page",
    CONTEXT,
)
_COSTS_FILE = Path(__file__).with_name("ab_costs.py")
_RUN_FILE = "import runpy, sys; runpy.run_path(sys.argv.pop(1), run_name='__main__')"


@dataclass(frozen=True)
class Side:
    """One checkout under test."""

    name: str
    tree: Path

    @property
    def python(self) -> Path:
        """The checkout's own interpreter (``scripts/bootstrap.sh`` made it)."""
        return self.tree / ".venv" / "bin" / "python"


def _env(database_url: str, opa_url: str) -> dict[str, str]:
    # Each checkout runs its own venv's Python, so this one's path and venv stay out;
    # OTEL_* variables too: both sides serve untraced.
    env = one_worker_env(
        database_url,
        opa_url,
        drop=lambda name: name in ("PYTHONPATH", "VIRTUAL_ENV") or name.startswith("OTEL_"),
    )
    env["PYTHONHASHSEED"] = "0"
    return env


@contextlib.contextmanager
def _servers(sides: list[Side], env: dict[str, str], workdir: Path) -> Iterator[list[str]]:
    """``python -m app serve`` of every side, in its tree, started at once; their URLs."""
    with contextlib.ExitStack() as stack:
        apps = []
        for side in sides:
            port = free_port()
            log = workdir / f"{side.name}.log"
            with log.open("ab") as sink:
                process = subprocess.Popen(
                    [str(side.python), "-m", "app", "serve"],
                    cwd=side.tree,
                    env={**env, "HOST": "127.0.0.1", "PORT": str(port)},
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                )
            app = AppProcess(process, f"http://127.0.0.1:{port}", log, side.name)
            stack.callback(app.stop)
            apps.append(app)
        for app in apps:
            try:
                app.wait_ready()
            except ServiceError as exc:
                raise BenchError(str(exc)) from exc
        yield [app.base_url for app in apps]


@dataclass
class Costs:
    """What one request of each operation costs on one side, whatever the host's load."""

    trips: dict[str, tuple[float, float]]  # OPA calls, SQL statements
    calls: dict[str, dict[str, float]]  # function calls by package


def _costs(side: Side, env: dict[str, str], spec: Path) -> Costs:
    """OPA calls, SQL statements and function calls per request of each operation,
    counted in-process by ``side``'s own code (``tests/load/ab_costs.py``)."""
    done = subprocess.run(
        [str(side.python), "-c", _RUN_FILE, str(_COSTS_FILE), str(spec), f"costs-{side.name}"],
        cwd=side.tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"counting {side.name}'s costs failed: {done.stderr[-2000:]}")
    counted = json.loads(done.stdout)
    trips = {name: (opa, sql) for name, (opa, sql) in counted["costs"].items()}
    return Costs(trips, counted["calls"])


def _calls(
    base_url: str, names: tuple[str, ...], found: dict[str, operations.Operation], run: str
) -> list[Callable[[requests.Session], None]]:
    return [
        context_call(base_url, run)
        if name == CONTEXT
        else operations.operation_call(base_url, found[name])
        for name in names
    ]


def _block(
    urls: list[str],
    names: tuple[str, ...],
    found: dict[str, operations.Operation],
    run: str,
    args: argparse.Namespace,
    rng: random.Random,
) -> list[list[list[float]]]:
    """One block of interleaved rounds; latencies[side][operation][round]."""
    sessions = [keepalive_session() for _ in urls for _ in names]
    try:
        requests_of = [call for url in urls for call in _calls(url, names, found, run)]
        calls = [
            functools.partial(call, session)
            for call, session in zip(requests_of, sessions, strict=True)
        ]
        latencies, capped = interleaved_rounds(
            calls, args.rounds, rng, warmup=args.warmup, max_seconds=args.block_seconds
        )
    finally:
        for session in sessions:
            session.close()
    if capped:
        print(f"block capped at {args.block_seconds} s", file=sys.stderr)
    per = len(names)
    return [[latencies[s * per + o] for o in range(per)] for s in range(len(urls))]


def _percentile(data: list[float], p: float) -> float:
    ordered = sorted(data)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _interval(base: list[float], other: list[float], seed: int = 12) -> tuple[float, float]:
    """95% bootstrap interval of p50(other) - p50(base), resampling whole rounds."""
    rng = random.Random(seed)
    count = len(base)
    diffs = []
    for _ in range(1000):
        picks = [rng.randrange(count) for _ in range(count)]
        diffs.append(
            statistics.median(other[i] for i in picks) - statistics.median(base[i] for i in picks)
        )
    diffs.sort()
    return diffs[25], diffs[974]


def table(sides: list[Side], names: tuple[str, ...], latencies: list[list[list[float]]]) -> str:
    """Markdown: per operation and side p50/p90/p99, and each later side against the first."""
    lines = [
        "| operation | side | n | p50 ms | p90 ms | p99 ms | p50 - first ms (95% interval) "
        "| paired median ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for o, name in enumerate(names):
        base = latencies[0][o]
        for s, side in enumerate(sides):
            mine = latencies[s][o]
            cells = [f"{_percentile(mine, p):.2f}" for p in (50, 90, 99)]
            if s == 0:
                delta = paired = ""
            else:
                low, high = _interval(base, mine)
                diff = statistics.median(mine) - statistics.median(base)
                delta = f"{diff:+.2f} ({low:+.2f} to {high:+.2f})"
                paired = f"{statistics.median(b - a for a, b in zip(base, mine, strict=True)):+.2f}"
            lines.append(
                f"| {name} | {side.name} | {len(mine)} | {' | '.join(cells)} | {delta} | {paired} |"
            )
    return "\n".join(lines)


def costs_table(sides: list[Side], names: tuple[str, ...], costs: list[Costs]) -> str:
    """Markdown: OPA round trips, SQL statements and function calls per request, per
    side, and the packages whose calls differ most between the first two sides."""
    head = " | ".join(f"{side.name} OPA / SQL / calls" for side in sides)
    lines = [
        f"| operation | {head} | most changed calls, {sides[1].name} - {sides[0].name} |",
        "| --- |" + " ---: |" * len(sides) + " --- |",
    ]
    for name in names:
        cells = " | ".join(
            f"{c.trips[name][0]:g} / {c.trips[name][1]:g} / {sum(c.calls[name].values()):.0f}"
            for c in costs
        )
        before, after = costs[0].calls[name], costs[1].calls[name]
        changed = sorted(
            ((after.get(k, 0) - before.get(k, 0), k) for k in before.keys() | after.keys()),
            key=lambda pair: -abs(pair[0]),
        )
        moved = ", ".join(f"{k} {d:+.0f}" for d, k in changed[:6] if round(d))
        lines.append(f"| {name} | {cells} | {moved} |")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="checkout A (with its .venv)")
    p.add_argument("--after", type=Path, default=REPO_ROOT, help="checkout B (default: this one)")
    p.add_argument("--noise-floor", action="store_true", help="also a second server of A")
    p.add_argument("--rounds", type=int, default=600, help="rounds per block")
    p.add_argument("--warmup", type=int, default=50, help="warm-up rounds per block")
    p.add_argument("--blocks", type=int, default=2, help="blocks, each with fresh servers")
    p.add_argument("--block-seconds", type=float, default=600, help="time cap per block")
    p.add_argument("--seed", type=int, default=20261202)
    p.add_argument(
        "--operation", action="append", choices=OPERATIONS, help="only these (repeatable)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the A/B; prints markdown on stdout, progress on stderr."""
    args = parser().parse_args(argv)
    names = tuple(args.operation or OPERATIONS)
    sides = [Side("before", args.before.resolve()), Side("after", args.after.resolve())]
    if args.noise_floor:
        sides.append(Side("before-2", args.before.resolve()))
    for side in sides:
        if not side.python.exists():
            raise BenchError(f"{side.python} is missing: run scripts/bootstrap.sh in {side.tree}")
    configure_logging("WARNING")
    rng = random.Random(args.seed)
    started = time.monotonic()
    load = os.getloadavg()
    with contextlib.ExitStack() as stack:
        print("starting PostgreSQL and OPA, loading the world ...", file=sys.stderr)
        cluster, opa = stack.enter_context(local_sources())
        database_url, ids = prepare_database(cluster)
        # Checkouts before the ten attempt runs of issue 23 name one run "r-attempts".
        ids = {"r-attempts": ids["r-attempts-0"], **ids}
        run = ids[f"r{REFERENCE}"]
        found = {op.name: op for op in operations.operations(ids, run)}
        env = _env(database_url, opa.url)
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-ab-")))
        spec = workdir / "spec.json"
        spec.write_text(json.dumps({"ids": ids, "run": run, "names": list(names)}))
        print("counting OPA calls and SQL statements per side ...", file=sys.stderr)
        costs = [_costs(side, env, spec) for side in sides]
        merged: list[list[list[float]]] = [[[] for _ in names] for _ in sides]
        blocks = []
        for block in range(args.blocks):
            print(f"block {block + 1} of {args.blocks} ...", file=sys.stderr)
            with _servers(sides, env, workdir) as urls:
                measured = _block(urls, names, found, run, args, rng)
            blocks.append(measured)
            for s, per_side in enumerate(measured):
                for o, data in enumerate(per_side):
                    merged[s][o] += data
    out = [
        f"A/B: before {sides[0].tree}, after {sides[1].tree}; {args.blocks} blocks of "
        f"{args.rounds} rounds ({args.warmup} warm-up), {time.monotonic() - started:.0f} s, "
        f"load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end.",
        "",
        costs_table(sides, names, costs),
    ]
    if blocks:
        out += ["", "All blocks:", "", table(sides, names, merged)]
    for number, measured in enumerate(blocks, 1):
        out += ["", f"Block {number}:", "", table(sides, names, measured)]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    # SIGTERM too unwinds the with blocks, so the servers, PostgreSQL and OPA stop.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        sys.exit(main())
    except (KeyboardInterrupt, BenchError) as exc:
        print(f"A/B stopped ({exc!r}); services stopped", file=sys.stderr)
        sys.exit(1)
