"""Failed authentication is limited per client address (``rate_limit.failed_auth``).

A token-guessing loop gets ``rate_limit.failed_auth.per_minute`` 401s, then 429 with
``Retry-After`` for any token, valid ones included, so it can no longer tell a right
guess from a wrong one. The address is the TCP peer; ``X-Forwarded-For`` counts only
from a trusted proxy. Neither the limiter nor anything else logs the guessed tokens.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests

from tests.conftest import RunningService
from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration

FAILURES = 5


def _get(service: RunningService, path: str, token: str, **headers: str) -> requests.Response:
    return requests.get(
        f"{service.base_url}{path}",
        headers={"Authorization": f"Bearer {token}", **headers},
        timeout=10,
    )


def test_a_token_guessing_loop_gets_429_after_the_configured_failures(
    make_service: Callable[..., RunningService], ids: dict[str, str]
) -> None:
    service = make_service(**{"rate_limit.failed_auth.per_minute": FAILURES})
    general = messages_path(ids["support/general"])
    guesses = [f"guess-{n:04d}-a1b2c3" for n in range(4 * FAILURES)]

    answers = [_get(service, general, guess) for guess in guesses]

    statuses = [answer.status_code for answer in answers]
    assert statuses == [401] * FAILURES + [429] * (3 * FAILURES)
    limited = answers[-1]
    assert limited.json()["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    # A right guess now looks like a wrong one.
    assert _get(service, general, "tok-sam").status_code == 429
    log = service.log.getvalue()
    assert not [guess for guess in guesses if guess in log]
    assert "tok-sam" not in log


def test_valid_callers_are_not_counted(
    make_service: Callable[..., RunningService], ids: dict[str, str]
) -> None:
    service = make_service(**{"rate_limit.failed_auth.per_minute": 2})
    general = messages_path(ids["support/general"])

    assert {_get(service, general, "tok-sam").status_code for _ in range(10)} == {200}
    assert [_get(service, general, "wrong").status_code for _ in range(3)] == [401, 401, 429]


def test_forwarded_addresses_count_only_behind_a_trusted_proxy(
    make_service: Callable[..., RunningService], ids: dict[str, str]
) -> None:
    general = messages_path(ids["support/general"])
    direct = make_service(**{"rate_limit.failed_auth.per_minute": 2})
    # Not a trusted proxy: a new X-Forwarded-For per request does not open a new window.
    spoofed = [
        _get(direct, general, "wrong", **{"X-Forwarded-For": f"198.51.100.{n}"}).status_code
        for n in range(4)
    ]
    assert spoofed == [401, 401, 429, 429]

    proxied = make_service(
        **{"rate_limit.failed_auth.per_minute": 2, "rate_limit.trusted_proxies": "127.0.0.1"}
    )
    alex_net = {"X-Forwarded-For": "203.0.113.5, 198.51.100.7"}
    assert [_get(proxied, general, "wrong", **alex_net).status_code for _ in range(3)] == [
        401,
        401,
        429,
    ]
    # Another client behind the same proxy has its own window, and valid tokens work.
    sam_net = {"X-Forwarded-For": "198.51.100.8"}
    assert _get(proxied, general, "wrong", **sam_net).status_code == 401
    assert _get(proxied, general, "tok-sam", **sam_net).status_code == 200
    assert _get(proxied, general, "tok-sam", **alex_net).status_code == 429


def test_a_refusal_is_counted_by_class(
    make_service: Callable[..., RunningService], ids: dict[str, str]
) -> None:
    # metrics.port turns counting on; in-process, nothing listens on it.
    service = make_service(**{"rate_limit.failed_auth.per_minute": 1, "metrics.port": 1})
    general = messages_path(ids["support/general"])

    assert [_get(service, general, "wrong").status_code for _ in range(3)] == [401, 429, 429]

    metrics = service.app.services.metrics
    assert metrics is not None
    counted = metrics.registry.get_sample_value(
        "agent_authz_rate_limited_total", {"class": "failed_auth"}
    )
    assert counted == 2
