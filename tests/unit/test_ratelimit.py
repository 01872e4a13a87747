"""The limiter on the library's memory storage, with a fake clock, and its failure modes.

The ``limits`` memory storage reads ``time.time()`` of its own module; the tests swap
that module's ``time`` for a manual clock, so a minute passes in no time. Storage
failures come from storages that raise what the Redis storage raises (a wrapped
redis-py error) or never answer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import limits.aio.storage.memory
import pytest
import redis.exceptions
from limits.aio.storage import MemoryStorage
from limits.errors import StorageError

from app.config import load_settings
from app.errors import RateLimited, ServiceUnavailable
from app.http import ratelimit
from app.http.ratelimit import RateLimiter
from app.http.routes import load_spec

T = TypeVar("T")


class Clock:
    """A manual clock for both the library (epoch seconds) and the limiter."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits.aio.storage.memory, "time", SimpleNamespace(time=fake))
    return fake


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def _limiter(clock: Clock, storage: Any = None, **keys: Any) -> RateLimiter:
    overrides = {
        (name if "." in name else f"rate_limit.{name}.per_minute"): value
        for name, value in keys.items()
    }
    settings = load_settings(environ={}).replace(**overrides)
    return RateLimiter(settings, storage=storage, clock=clock, wall=clock)


async def _refused(limiter: RateLimiter, rate_class: str, key: str) -> RateLimited:
    with pytest.raises(RateLimited) as caught:
        await limiter.check(rate_class, key)
    return caught.value


# ------------------------------------------------------------------- the window


def test_the_figure_is_admitted_at_once_then_refused_until_the_oldest_leaves(
    clock: Clock,
) -> None:
    limiter = _limiter(clock, chat=2)

    async def scenario() -> None:
        await limiter.check("chat", "p1")
        clock.advance(10)
        await limiter.check("chat", "p1")
        clock.advance(5)
        refused = await _refused(limiter, "chat", "p1")
        assert (refused.retry_after, refused.status, refused.code) == (45, 429, "rate_limited")

        clock.advance(45.5)  # the first request left the window; the second has not
        await limiter.check("chat", "p1")
        assert (await _refused(limiter, "chat", "p1")).retry_after == 10

    run(scenario())


def test_refused_requests_do_not_count(clock: Clock) -> None:
    limiter = _limiter(clock, chat=1)

    async def scenario() -> None:
        await limiter.check("chat", "p1")
        for _ in range(5):
            clock.advance(10)
            await _refused(limiter, "chat", "p1")
        clock.advance(10.5)
        await limiter.check("chat", "p1")

    run(scenario())


def test_retry_after_is_at_least_one_second(clock: Clock) -> None:
    limiter = _limiter(clock, chat=3)

    async def scenario() -> None:
        for _ in range(3):
            await limiter.check("chat", "p1")
        clock.advance(59.9)
        assert (await _refused(limiter, "chat", "p1")).retry_after == 1

    run(scenario())


def test_no_window_holds_more_than_the_figure(clock: Clock) -> None:
    # A moving window, not a fixed one: no burst of twice the figure across a boundary.
    limiter = _limiter(clock, chat=10)

    async def scenario() -> list[float]:
        admitted: list[float] = []
        for _ in range(240):
            try:
                await limiter.check("chat", "p1")
                admitted.append(clock.now)
            except RateLimited:
                pass
            clock.advance(0.5)
        return admitted

    admitted = run(scenario())
    assert len(admitted) == 20
    later = admitted[10:]
    assert all(b - a >= 60 for a, b in zip(admitted, later, strict=False))


def test_principals_and_classes_have_their_own_windows(clock: Clock) -> None:
    limiter = _limiter(clock, chat=1, admin=1)

    async def scenario() -> None:
        await limiter.check("chat", "p1")
        await _refused(limiter, "chat", "p1")
        await limiter.check("chat", "p2")
        await limiter.check("admin", "p1")
        await _refused(limiter, "admin", "p1")

    run(scenario())


def test_a_figure_of_zero_disables_the_class(clock: Clock) -> None:
    limiter = _limiter(clock, chat=0)

    async def scenario() -> None:
        for _ in range(1000):
            await limiter.check("chat", "anyone")

    run(scenario())


def test_every_limited_class_of_the_contract_has_a_key(clock: Clock) -> None:
    limiter = _limiter(clock)
    spec = load_spec()
    classes = {
        operation["x-rate-limit-class"]
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "x-rate-limit-class" in operation
    }

    async def scenario() -> None:
        # health probes are never limited (app/http/ratelimit.py); the others have a key.
        for rate_class in classes - {"health"}:
            await limiter.check(rate_class, "p1")

    assert {"agent_runtime", "chat", "admin", "authz", "health"} <= classes
    run(scenario())


def test_an_unknown_class_is_a_programming_error(clock: Clock) -> None:
    with pytest.raises(KeyError):
        run(_limiter(clock).check("nonexistent", "p1"))


def test_concurrent_callers_never_get_more_than_the_figure(clock: Clock) -> None:
    limiter = _limiter(clock, chat=50)

    async def one() -> bool:
        try:
            await limiter.check("chat", "shared")
        except RateLimited:
            return False
        return True

    async def scenario() -> list[bool]:
        return list(await asyncio.gather(*(one() for _ in range(200))))

    assert sum(run(scenario())) == 50


def test_a_sync_handler_checks_through_the_event_loop(clock: Clock) -> None:
    limiter = _limiter(clock, chat=1)
    threads: list[str] = []

    def handler() -> None:
        threads.append(threading.current_thread().name)
        limiter.check_blocking("chat", "p1")

    async def scenario() -> None:
        await anyio.to_thread.run_sync(handler)
        with pytest.raises(RateLimited):
            await anyio.to_thread.run_sync(handler)

    anyio.run(scenario)
    assert threading.main_thread().name not in threads


# ------------------------------------------------------------ failed authentication


class CountingStorage(MemoryStorage):
    """The memory storage, counting the calls that read or write a window."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        self.calls += 1
        return await super().acquire_entry(key, limit, expiry, amount)

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        self.calls += 1
        return await super().get_moving_window(key, limit, expiry)


def test_an_address_that_failed_too_often_is_refused_before_its_token_is_looked_up(
    clock: Clock,
) -> None:
    limiter = _limiter(clock, failed_auth=3)

    async def scenario() -> None:
        for _ in range(3):
            await limiter.admit_authentication("192.0.2.7")
            await limiter.authentication_failed("192.0.2.7")
            clock.advance(1)
        with pytest.raises(RateLimited) as caught:
            await limiter.admit_authentication("192.0.2.7")
        assert caught.value.retry_after == 57
        await limiter.admit_authentication("192.0.2.8")  # another address

        clock.advance(57.5)
        await limiter.admit_authentication("192.0.2.7")

    run(scenario())


def test_valid_callers_never_read_the_failed_authentication_window(clock: Clock) -> None:
    storage = CountingStorage()
    limiter = _limiter(clock, storage, failed_auth=3)

    async def scenario() -> None:
        for _ in range(100):
            await limiter.admit_authentication("192.0.2.7")
        assert storage.calls == 0
        await limiter.authentication_failed("192.0.2.7")
        await limiter.admit_authentication("192.0.2.7")
        assert storage.calls == 2
        clock.advance(60)  # a minute without failure: not read again
        await limiter.admit_authentication("192.0.2.7")
        assert storage.calls == 2

    run(scenario())


def test_the_remembered_addresses_are_bounded(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ratelimit, "MAX_SUSPECTS", 2)
    storage = CountingStorage()
    limiter = _limiter(clock, storage, failed_auth=1)

    async def scenario() -> None:
        for address in ("192.0.2.1", "192.0.2.2", "192.0.2.3"):
            await limiter.authentication_failed(address)
        calls = storage.calls
        await limiter.admit_authentication("192.0.2.1")  # forgotten: not read
        assert storage.calls == calls
        with pytest.raises(RateLimited):
            await limiter.admit_authentication("192.0.2.3")

    run(scenario())


def test_a_failed_authentication_limit_of_zero_disables_it(clock: Clock) -> None:
    limiter = _limiter(clock, failed_auth=0)

    async def scenario() -> None:
        for _ in range(100):
            await limiter.admit_authentication("192.0.2.7")
            await limiter.authentication_failed("192.0.2.7")

    run(scenario())


# ------------------------------------------------------------------ storage failures


class BrokenStorage(MemoryStorage):
    """A storage that fails like an unreachable Redis, or never answers (``hang``)."""

    def __init__(self, hang: bool = False) -> None:
        super().__init__()
        self.hang = hang
        self.calls = 0

    async def _fail(self) -> None:
        self.calls += 1
        if self.hang:
            await asyncio.sleep(60)
        raise StorageError(redis.exceptions.ConnectionError("connection refused"))

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        await self._fail()
        return True

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        await self._fail()
        return 0.0, 0


def _broken(clock: Clock, storage: BrokenStorage, mode: str, failures: list[str]) -> RateLimiter:
    settings = load_settings(environ={}).replace(
        **{
            "rate_limit.chat.per_minute": 1,
            "rate_limit.failed_auth.per_minute": 1,
            "rate_limit.storage_failure_mode": mode,
            "rate_limit.storage_timeout_seconds": 0.05,
            "rate_limit.storage_retry_seconds": 1.0,
        }
    )
    return RateLimiter(
        settings, storage=storage, on_storage_failure=failures.append, clock=clock, wall=clock
    )


def test_an_unreachable_storage_fails_open_counts_and_asks_again_after_the_retry_interval(
    clock: Clock,
) -> None:
    storage, failures = BrokenStorage(), list[str]()
    limiter = _broken(clock, storage, "open", failures)

    async def scenario() -> None:
        for _ in range(5):
            await limiter.check("chat", "p1")  # served unlimited
        assert (storage.calls, failures) == (1, ["unreachable"])
        clock.advance(1.0)
        await limiter.check("chat", "p1")
        assert (storage.calls, failures) == (2, ["unreachable", "unreachable"])

    run(scenario())


def test_an_unreachable_storage_fails_closed_when_configured(clock: Clock) -> None:
    storage, failures = BrokenStorage(), list[str]()
    limiter = _broken(clock, storage, "closed", failures)

    async def scenario() -> None:
        for _ in range(3):
            with pytest.raises(ServiceUnavailable) as caught:
                await limiter.check("chat", "p1")
            assert caught.value.source == "rate_limit"
        await limiter.authentication_failed("192.0.2.7")  # the 401 stands
        with pytest.raises(ServiceUnavailable):
            await limiter.admit_authentication("192.0.2.7")

    run(scenario())
    assert failures == ["unreachable"]


def test_a_storage_that_does_not_answer_in_time_is_a_timeout(clock: Clock) -> None:
    storage, failures = BrokenStorage(hang=True), list[str]()
    limiter = _broken(clock, storage, "open", failures)

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await limiter.check("chat", "p1")
        return loop.time() - started

    assert run(scenario()) < 1
    assert failures == ["timeout"]


def test_a_refusal_whose_window_cannot_be_read_waits_a_whole_window(clock: Clock) -> None:
    class RefusingStorage(BrokenStorage):
        async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
            return False

    failures: list[str] = []
    limiter = _broken(clock, RefusingStorage(), "open", failures)

    async def scenario() -> None:
        assert (await _refused(limiter, "chat", "p1")).retry_after == 60

    run(scenario())
    assert failures == ["unreachable"]
