"""Rate limits: per principal and rate-limit class, and failed authentication per address.

Each operation declares ``x-rate-limit-class``; the limit per minute comes from the
configuration key ``rate_limit.<class>.per_minute`` (0 disables the class). The
``health`` class is never limited: probes are unauthenticated and must always answer.
Failed authentication has a class of its own, :data:`FAILED_AUTH_CLASS`
(``rate_limit.failed_auth.per_minute``), counted per client address
(:mod:`app.http.client_address`).

The windows are the ``limits`` library's moving window (ADR 0019): a class admits at
most its figure in any 60 seconds, exactly, and a refusal's ``Retry-After`` is the wait
until the oldest request of the window leaves it. Where they live is
``rate_limit.storage``: ``memory://`` keeps them in the process (each worker and replica
limits on its own), a Redis URL shares them across every worker and replica. The
library's asyncio API is used throughout, so a check never blocks the event loop; a
sync handler (the comms relay) reaches it through :meth:`RateLimiter.check_blocking`.

Rate limiting is not an authorization decision: when the storage cannot answer within
``rate_limit.storage_timeout_seconds``, the request is served without limiting
(``rate_limit.storage_failure_mode`` ``open``, the default) or answered 503
(``closed``), the failure is counted (``on_storage_failure``) and logged by kind, and
for ``rate_limit.storage_retry_seconds`` the process does not ask the storage again, so
an unreachable Redis costs one timeout per process and interval, not one per request.
Keys hold the class and a principal id or a client address; nothing here logs a key,
let alone a token.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import anyio.from_thread
import redis.asyncio
import redis.exceptions
from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from starlette.types import Scope

from app.config import Settings
from app.errors import RateLimited, ServiceUnavailable
from app.http.client_address import ClientAddresses

__all__ = [
    "FAILED_AUTH_CLASS",
    "MEMORY_STORAGE",
    "STORAGE_FAILURE_KINDS",
    "RateLimiter",
    "storage_from_url",
]

log = logging.getLogger("app.ratelimit")

# The class of failed authentications, counted per client address.
FAILED_AUTH_CLASS: Final = "failed_auth"
# Why the storage could not answer (the ``kind`` of the storage-failure metric).
STORAGE_FAILURE_KINDS: Final = ("unreachable", "timeout", "error")
MEMORY_STORAGE: Final = "memory://"
# Every key the service writes to Redis starts with this, so a shared Redis can tell
# them apart and an operator can find them.
KEY_PREFIX: Final = "agent_authz"
# The fail-closed answer's source in agent_authz_fail_closed_total.
FAIL_CLOSED_SOURCE: Final = "rate_limit"
# Addresses a process remembers as having failed authentication within the window;
# beyond this the oldest is forgotten (it then skips one pre-check until it fails again).
MAX_SUSPECTS: Final = 10_000

T = TypeVar("T")


class _Unavailable:
    """The storage gave no answer (a failure now, or one within the retry interval)."""


UNAVAILABLE: Final = _Unavailable()


def storage_from_url(
    url: str, timeout: float
) -> tuple[Storage, redis.asyncio.ConnectionPool | None]:
    """The ``limits`` asyncio storage for ``rate_limit.storage``, and its Redis pool.

    ``memory://`` is the library's in-process storage (no pool). A Redis URL gets
    redis-py's asyncio client on a pool configured here: socket and connect timeouts
    of ``timeout``, and one immediate reconnect for a connection that Redis closed (a
    restart) instead of redis-py's default of three retries with backoff of up to
    seconds, which would hold a request while Redis is down.
    """
    if url == MEMORY_STORAGE:
        return MemoryStorage(), None
    pool = redis.asyncio.ConnectionPool.from_url(
        url.replace("redis+unix://", "unix://", 1),
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 1),
    )
    options: dict[str, Any] = {"connection_pool": pool}
    storage = RedisStorage(
        f"async+{url}",
        implementation="redispy",
        key_prefix=KEY_PREFIX,
        wrap_exceptions=True,
        **options,
    )
    return storage, pool


def _failure_kind(exc: BaseException) -> str:
    cause = exc.storage_error if isinstance(exc, StorageError) else exc
    if isinstance(cause, TimeoutError | redis.exceptions.TimeoutError):
        return "timeout"
    if isinstance(cause, redis.exceptions.ConnectionError):
        return "unreachable"
    return "error"


class RateLimiter:
    """Moving windows per (class, principal) and per failed-authentication address.

    Args:
        settings: the ``rate_limit.*`` keys.
        storage: a ``limits`` asyncio storage; by default the one ``rate_limit.storage``
            names (tests pass their own).
        on_reject: told the class of every refusal (the metrics); none by default.
        on_storage_failure: told the kind (:data:`STORAGE_FAILURE_KINDS`) of every
            storage failure (the metrics); none by default.
        clock: monotonic seconds, for the retry interval after a failure.
        wall: epoch seconds, the clock the library's windows use (for ``Retry-After``).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        storage: Storage | None = None,
        on_reject: Callable[[str], None] | None = None,
        on_storage_failure: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._settings = settings
        self._timeout = settings.number("rate_limit.storage_timeout_seconds")
        self._pool: redis.asyncio.ConnectionPool | None = None
        if storage is None:
            url = settings.text("rate_limit.storage")
            storage, self._pool = storage_from_url(url, self._timeout)
        self._window = MovingWindowRateLimiter(storage)
        self._fail_closed = settings.text("rate_limit.storage_failure_mode") == "closed"
        self._retry_seconds = settings.number("rate_limit.storage_retry_seconds")
        self._addresses = ClientAddresses.from_setting(settings.text("rate_limit.trusted_proxies"))
        self._on_reject = on_reject
        self._on_storage_failure = on_storage_failure
        self._clock = clock
        self._wall = wall
        self._items: dict[str, RateLimitItem | None] = {}
        self._quiet_until = -math.inf
        # Address -> until when (clock) this process saw it fail authentication.
        self._suspects: OrderedDict[str, float] = OrderedDict()

    def _item(self, rate_class: str) -> RateLimitItem | None:
        """The class's limit, ``None`` when disabled; an unknown class raises KeyError."""
        if rate_class not in self._items:
            per_minute = self._settings.integer(f"rate_limit.{rate_class}.per_minute")
            self._items[rate_class] = RateLimitItemPerMinute(per_minute) if per_minute else None
        return self._items[rate_class]

    async def check(self, rate_class: str, key: str) -> None:
        """Count one request of ``key`` (a principal id) in ``rate_class``.

        Raises:
            RateLimited: the window is full; ``retry_after`` says when it has room.
            ServiceUnavailable: the storage cannot answer and the mode is ``closed``.
            KeyError: ``rate_class`` has no ``rate_limit.<class>.per_minute`` key.
        """
        item = self._item(rate_class)
        if item is None:
            return
        admitted = await self._ask(lambda: self._window.hit(item, rate_class, key))
        await self._enforce(admitted, item, rate_class, key)

    def check_blocking(self, rate_class: str, key: str) -> None:
        """:meth:`check` from a sync handler's worker thread (runs it on the event loop).

        Raises:
            RuntimeError: not called from a worker thread of the serving event loop.
        """
        anyio.from_thread.run(self.check, rate_class, key)

    def client_address(self, scope: Scope) -> str:
        """The client address of a request (``rate_limit.trusted_proxies``)."""
        return self._addresses.of(scope)

    async def admit_authentication(self, address: str) -> None:
        """Before a token lookup: refuse an address whose failures fill its window.

        The storage is read only for an address this process saw fail within the
        window, so a caller whose tokens are valid never waits for it. The window itself
        is shared: once it is full, every process refuses the address after at most one
        more failure of its own (``docs/adr/0019-shared-rate-limits.md``).

        Raises:
            RateLimited: the address failed ``rate_limit.failed_auth.per_minute``
                times within the last minute.
            ServiceUnavailable: the storage cannot answer and the mode is ``closed``.
        """
        item = self._item(FAILED_AUTH_CLASS)
        if item is None or not self._suspected(address):
            return
        room = await self._ask(lambda: self._window.test(item, FAILED_AUTH_CLASS, address))
        await self._enforce(room, item, FAILED_AUTH_CLASS, address)

    async def authentication_failed(self, address: str) -> None:
        """Count one failed authentication of ``address`` (its answer stays 401).

        A storage failure here is counted and otherwise ignored: the request is
        already refused.
        """
        item = self._item(FAILED_AUTH_CLASS)
        if item is None:
            return
        self._suspects[address] = self._clock() + item.get_expiry()
        self._suspects.move_to_end(address)
        if len(self._suspects) > MAX_SUSPECTS:
            self._suspects.popitem(last=False)
        await self._ask(lambda: self._window.hit(item, FAILED_AUTH_CLASS, address))

    def _suspected(self, address: str) -> bool:
        until = self._suspects.get(address)
        if until is None:
            return False
        if until <= self._clock():
            del self._suspects[address]
            return False
        return True

    async def aclose(self) -> None:
        """Close the Redis pool's connections (at a graceful stop)."""
        if self._pool is not None:
            await self._pool.aclose()

    async def _ask(self, call: Callable[[], Awaitable[T]]) -> T | _Unavailable:
        """One storage call within the timeout; :data:`UNAVAILABLE` when it fails."""
        if self._clock() < self._quiet_until:
            return UNAVAILABLE
        try:
            async with asyncio.timeout(self._timeout):
                return await call()
        except (StorageError, TimeoutError) as exc:
            kind = _failure_kind(exc)
        self._quiet_until = self._clock() + self._retry_seconds
        # The kind only: a storage error's text may quote a key or the URL.
        log.warning("rate-limit storage unavailable", extra={"error": kind})
        if self._on_storage_failure is not None:
            self._on_storage_failure(kind)
        return UNAVAILABLE

    async def _enforce(
        self, room: bool | _Unavailable, item: RateLimitItem, rate_class: str, key: str
    ) -> None:
        """Refuse when the window has no room; without an answer, pass or fail closed."""
        if room is UNAVAILABLE:
            if self._fail_closed:
                raise ServiceUnavailable(
                    "The rate-limit storage cannot answer.", source=FAIL_CLOSED_SOURCE
                )
        elif not room:
            await self._refuse(item, rate_class, key)

    async def _refuse(self, item: RateLimitItem, rate_class: str, key: str) -> None:
        stats = await self._ask(lambda: self._window.get_window_stats(item, rate_class, key))
        if isinstance(stats, _Unavailable):
            retry_after = item.get_expiry()
        else:
            retry_after = max(1, math.ceil(stats.reset_time - self._wall()))
        if self._on_reject is not None:
            self._on_reject(rate_class)
        raise RateLimited(retry_after)
