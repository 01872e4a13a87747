"""Rate limiting per principal and rate-limit class (token buckets, per process).

Each operation declares ``x-rate-limit-class``; the limit per minute comes from the
configuration key ``rate_limit.<class>.per_minute`` (0 disables the class). The
``health`` class is never limited: probes are unauthenticated and must always answer. Buckets
live in process memory: with several replicas each one limits on its own, which
bounds a single principal to replicas times the limit. A shared limiter would need a
store such as Redis; that trade is recorded in the architecture document.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from app.config import Settings
from app.errors import RateLimited

__all__ = ["RateLimiter"]


class RateLimiter:
    """Token buckets keyed by (class, principal); thread-safe.

    Args:
        settings: the ``rate_limit.<class>.per_minute`` keys.
        clock: monotonic seconds (a fake in tests).
        on_reject: told the class of every rejection (the metrics); none by default.
    """

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], float] = time.monotonic,
        *,
        on_reject: Callable[[str], None] | None = None,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._on_reject = on_reject
        self._lock = threading.Lock()
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}

    def check(self, rate_class: str, principal_key: str) -> None:
        """Take one token for ``principal_key`` in ``rate_class``.

        Raises:
            RateLimited: the bucket is empty; ``retry_after`` says when one token is back.
        """
        per_minute = self._settings.integer(f"rate_limit.{rate_class}.per_minute")
        if per_minute == 0:
            return
        rate = per_minute / 60.0
        now = self._clock()
        key = (rate_class, principal_key)
        with self._lock:
            tokens, last = self._buckets.get(key, (float(per_minute), now))
            tokens = min(float(per_minute), tokens + (now - last) * rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                retry_after = max(1, math.ceil((1.0 - tokens) / rate))
            else:
                self._buckets[key] = (tokens - 1.0, now)
                return
        if self._on_reject is not None:
            self._on_reject(rate_class)
        raise RateLimited(retry_after)
