"""Interleaved rounds: several cases measured request by request in a shuffled order.

On a shared host the load comes and goes within seconds, so cases measured one after
the other each meet a different moment of it. Interleaved, every case meets the same
moments, and their ratios do not move with that load. ``make bench`` uses this for
its interleaved reading of the 8x target (``tests/load/bench.py``) and for what
metrics and tracing cost (``tests/load/overhead.py``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

__all__ = ["interleaved_rounds"]


def interleaved_rounds(
    calls: Sequence[Callable[[], None]],
    rounds: int,
    rng: random.Random,
    *,
    warmup: int = 0,
    max_seconds: float | None = None,
) -> tuple[list[list[float]], bool]:
    """Run ``warmup`` and then ``rounds`` rounds, each calling every call once in a fresh
    shuffled order, on this thread.

    Returns:
        The latencies in ms of each call (in the order of ``calls``) over the rounds
        after the warm-up, and whether ``max_seconds`` (counted from the first round)
        stopped the rounds early.

    Raises:
        Whatever a call raises: one failed call ends the measurement.
    """
    latencies: list[list[float]] = [[] for _ in calls]
    order = list(range(len(calls)))
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    for index in range(warmup + rounds):
        if deadline is not None and time.monotonic() > deadline:
            return latencies, True
        rng.shuffle(order)
        for case in order:
            begin = time.perf_counter()
            calls[case]()
            elapsed = (time.perf_counter() - begin) * 1000
            if index >= warmup:
                latencies[case].append(elapsed)
    return latencies, False
