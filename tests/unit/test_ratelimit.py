"""Token buckets per (rate-limit class, principal) with an injected clock."""

from __future__ import annotations

import threading

import pytest

from app.config import load_settings
from app.errors import RateLimited
from app.http.ratelimit import RateLimiter
from app.http.routes import load_spec


class Clock:
    """A manual monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _limiter(clock: Clock, **per_minute: int) -> RateLimiter:
    settings = load_settings(environ={}).replace(
        **{f"rate_limit.{name}.per_minute": value for name, value in per_minute.items()}
    )
    return RateLimiter(settings, clock=clock)


def test_the_limit_per_minute_is_available_at_once_then_the_next_call_is_refused() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=2)

    limiter.check("chat", "p1")
    limiter.check("chat", "p1")
    with pytest.raises(RateLimited) as caught:
        limiter.check("chat", "p1")

    assert caught.value.retry_after == 30
    assert caught.value.status == 429
    assert caught.value.code == "rate_limited"


def test_a_token_comes_back_after_sixty_seconds_divided_by_the_limit() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=2)
    limiter.check("chat", "p1")
    limiter.check("chat", "p1")

    clock.advance(29.0)
    with pytest.raises(RateLimited) as caught:
        limiter.check("chat", "p1")
    assert caught.value.retry_after == 1
    clock.advance(1.0)
    limiter.check("chat", "p1")
    with pytest.raises(RateLimited):
        limiter.check("chat", "p1")


def test_retry_after_is_the_rounded_up_wait_and_at_least_one_second() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=6000)
    for _ in range(6000):
        limiter.check("chat", "p1")

    with pytest.raises(RateLimited) as caught:
        limiter.check("chat", "p1")

    assert caught.value.retry_after == 1


def test_refused_calls_do_not_push_the_retry_further_away() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=1)
    limiter.check("chat", "p1")
    for _ in range(5):
        with pytest.raises(RateLimited):
            limiter.check("chat", "p1")

    clock.advance(60.0)

    limiter.check("chat", "p1")


def test_an_idle_bucket_refills_only_up_to_the_limit() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=3)
    limiter.check("chat", "p1")
    clock.advance(3600.0)

    for _ in range(3):
        limiter.check("chat", "p1")
    with pytest.raises(RateLimited):
        limiter.check("chat", "p1")


def test_principals_and_classes_have_their_own_buckets() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=1, admin=1)
    limiter.check("chat", "p1")
    with pytest.raises(RateLimited):
        limiter.check("chat", "p1")

    limiter.check("chat", "p2")
    limiter.check("admin", "p1")
    with pytest.raises(RateLimited):
        limiter.check("admin", "p1")


def test_a_limit_of_zero_disables_the_class() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=0)

    for _ in range(10_000):
        limiter.check("chat", "anyone")


def test_every_limited_class_of_the_contract_has_a_limit_key() -> None:
    limiter = _limiter(Clock())
    spec = load_spec()
    classes = {
        operation["x-rate-limit-class"]
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "x-rate-limit-class" in operation
    }

    assert {"agent_runtime", "chat", "admin", "authz", "health"} <= classes
    # health probes are never limited (app/http/ratelimit.py); the others have a key.
    for rate_class in classes - {"health"}:
        limiter.check(rate_class, "p1")


def test_an_unknown_class_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        _limiter(Clock()).check("nonexistent", "p1")


def test_concurrent_callers_never_get_more_than_the_limit() -> None:
    clock = Clock()
    limiter = _limiter(clock, chat=50)
    allowed: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(20)

    def worker() -> None:
        barrier.wait()
        for _ in range(10):
            try:
                limiter.check("chat", "shared")
            except RateLimited:
                continue
            with lock:
                allowed.append(1)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(allowed) == 50
