"""Rate limits on a real Redis, and what a request gets while Redis is away.

The app runs in-process with ``rate_limit.storage`` pointing at the session's
redis-server (emptied per test). Redis is stopped, paused or restarted under the
running app: with the default failure mode (open) no request fails and every storage
failure is counted; with ``closed`` the requests fail closed with 503; after Redis is
back the limits hold again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import RunningService
from tests.integration.foundation.conftest import messages_path
from tests.support.services import RedisServer, free_port

pytestmark = pytest.mark.integration

PER_MINUTE = 5
RETRY_SECONDS = 0.2


def _service(make_service: Callable[..., RunningService], redis_url: str, **keys: Any) -> Any:
    return make_service(
        **{
            "rate_limit.storage": redis_url,
            "rate_limit.chat.per_minute": PER_MINUTE,
            "rate_limit.storage_retry_seconds": RETRY_SECONDS,
            # Metrics on (the listener is not needed: the registry is read directly).
            "metrics.port": free_port(),
            **keys,
        }
    )


def _statuses(service: RunningService, token: str, path: str, count: int) -> list[int]:
    client = service.client(token)
    return [client.get(path).status_code for _ in range(count)]


def _metric(service: RunningService, name: str, **labels: str) -> float:
    metrics = service.app.services.metrics
    assert metrics is not None
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def _failures(service: RunningService, kind: str) -> float:
    return _metric(service, "agent_authz_rate_limit_storage_failures_total", kind=kind)


def test_the_window_lives_in_redis(
    make_service: Callable[..., RunningService],
    redis_url: str,
    redis_server: RedisServer,
    ids: dict[str, str],
) -> None:
    service = _service(make_service, redis_url)
    general = messages_path(ids["support/general"])

    statuses = _statuses(service, "tok-sam", general, PER_MINUTE + 2)

    assert statuses == [200] * PER_MINUTE + [429, 429]
    keys = redis_server.command("KEYS", "agent_authz:*")
    assert keys == b"*1"  # one window: (chat, Sam's id); no token in any key
    assert _failures(service, "unreachable") == 0


def test_redis_stopped_and_restarted_mid_run_no_5xx_counted_then_limits_resume(
    make_service: Callable[..., RunningService],
    redis_url: str,
    redis_server: RedisServer,
    ids: dict[str, str],
) -> None:
    service = _service(make_service, redis_url)
    general = messages_path(ids["support/general"])
    assert _statuses(service, "tok-sam", general, PER_MINUTE + 1) == [200] * PER_MINUTE + [429]

    redis_server.stop()
    during = _statuses(service, "tok-sam", general, 3 * PER_MINUTE)
    time.sleep(RETRY_SECONDS)
    during += _statuses(service, "tok-alex", general, 2)

    # Served without limiting: Sam's full window does not count while Redis is away.
    assert during == [200] * len(during)
    failed = _failures(service, "unreachable")
    assert failed >= 2  # once, then again after the retry interval
    assert failed <= 1 + len(during) // 2  # not once per request: the retry interval holds
    assert _metric(service, "agent_authz_fail_closed_total", source="rate_limit") == 0

    redis_server.start()  # empty again: no persistence
    time.sleep(RETRY_SECONDS)
    after = _statuses(service, "tok-sam", general, PER_MINUTE + 1)

    assert after == [200] * PER_MINUTE + [429]
    assert "rate-limit storage unavailable" in service.log.getvalue()


def test_redis_that_does_not_answer_costs_one_timeout_and_is_counted(
    make_service: Callable[..., RunningService],
    redis_url: str,
    redis_server: RedisServer,
    ids: dict[str, str],
) -> None:
    timeout = 0.5
    service = _service(
        make_service,
        redis_url,
        **{"rate_limit.storage_timeout_seconds": timeout, "rate_limit.storage_retry_seconds": 30},
    )
    general = messages_path(ids["support/general"])
    sam = service.client("tok-sam")
    assert sam.get(general).status_code == 200  # a pooled connection exists

    redis_server.pause()
    answers: list[tuple[int, float]] = []
    try:
        for _ in range(5):
            started = time.monotonic()
            status = sam.get(general).status_code
            answers.append((status, time.monotonic() - started))
    finally:
        redis_server.resume()

    assert [status for status, _ in answers] == [200] * 5
    assert _failures(service, "timeout") == 1
    # The first request waited for the timeout; within the retry interval the others
    # did not ask the storage at all.
    assert timeout <= answers[0][1] < 2 * timeout
    assert all(seconds < timeout for _, seconds in answers[1:])


def test_fail_closed_answers_503_while_redis_is_away_and_recovers(
    make_service: Callable[..., RunningService],
    redis_url: str,
    redis_server: RedisServer,
    ids: dict[str, str],
) -> None:
    service = _service(make_service, redis_url, **{"rate_limit.storage_failure_mode": "closed"})
    general = messages_path(ids["support/general"])
    assert _statuses(service, "tok-sam", general, 1) == [200]

    redis_server.stop()
    sam = service.client("tok-sam")
    refused = [sam.get(general) for _ in range(3)]

    assert [r.status_code for r in refused] == [503] * 3
    assert {r.json()["code"] for r in refused} == {"service_unavailable"}
    assert _metric(service, "agent_authz_fail_closed_total", source="rate_limit") == 3
    assert _failures(service, "unreachable") >= 1
    # Probes are never limited, so readiness is untouched by the storage.
    assert service.client().get("/healthz").status_code == 200

    redis_server.start()
    time.sleep(RETRY_SECONDS)
    assert _statuses(service, "tok-sam", general, PER_MINUTE + 1) == [200] * PER_MINUTE + [429]
