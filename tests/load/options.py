"""The command-line options of ``python -m tests.load.bench`` (``--help`` lists them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.load import parts
from tests.load.report import OUTPUT


def parser(description: str) -> argparse.ArgumentParser:
    """The parser of ``python -m tests.load.bench``: its own options, then every part's
    (:data:`tests.load.parts.PARTS`)."""
    parser = argparse.ArgumentParser(prog="python -m tests.load.bench", description=description)
    parser.add_argument(
        "--requests-c1",
        type=int,
        default=300,
        help="requests per case at concurrency 1 (default 300)",
    )
    parser.add_argument(
        "--requests-c8",
        type=int,
        default=800,
        help="requests per case at concurrency 8 (default 800)",
    )
    parser.add_argument(
        "--case-seconds", type=float, default=20.0, help="time cap per case in seconds (default 20)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=50,
        help="warm-up requests per thread size and concurrency (default 50)",
    )
    parser.add_argument(
        "--profile-requests",
        type=int,
        default=200,
        help="requests profiled in the slowest case; 0 skips (default 200)",
    )
    parser.add_argument(
        "--interleaved-rounds",
        type=int,
        default=600,
        help="rounds of getRunContext interleaved with a bare decision; 0 skips (default 600)",
    )
    parser.add_argument(
        "--operation-rounds",
        type=int,
        default=200,
        help="rounds of each hot operation interleaved with both floors; 0 skips (default 200)",
    )
    parser.add_argument(
        "--no-flask", action="store_true", help="skip the Connexion FlaskApp comparison"
    )
    parser.add_argument(
        "--without-statistics",
        action="store_true",
        help="load without the loader's ANALYZE, autovacuum off for the loaded tables",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=OUTPUT,
        help="markdown file to write (default docs/benchmarks.md)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--profile-dump",
        type=Path,
        default=None,
        help="also save the raw cProfile stats there (for pstats/snakeviz)",
    )
    parser.add_argument("--serve-flask", action="store_true", help=argparse.SUPPRESS)
    parts.add_arguments(parser)
    return parser
