"""Fault injection (issue 7): OPA and PostgreSQL failing in the middle of a request.

The app talks to the real OPA and the real PostgreSQL through the fault proxies of
``tests/support/faults.py``. Each fault must end the request with 503 Problem JSON,
write nothing, and leave the service able to answer the next request once the
source is back. A retried post after a fault is stored exactly once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.integration.foundation.conftest import messages_path
from tests.support.faults import Delay, Drop, Forward, HttpFaultProxy, TcpFaultProxy
from tests.support.services import OpaServer

pytestmark = pytest.mark.integration

PROBLEM_KEYS = {"type", "title", "status", "code", "correlation_id", "detail"}


@pytest.fixture
def opa_proxy(opa_server: OpaServer) -> Iterator[HttpFaultProxy]:
    """A fault proxy in front of the session's OPA."""
    with HttpFaultProxy(opa_server.url) as proxy:
        yield proxy


@pytest.fixture
def pg_proxy(database_url: str) -> Iterator[tuple[TcpFaultProxy, str]]:
    """A TCP fault proxy in front of this test's PostgreSQL, and the URL through it."""
    parts = urlsplit(database_url)
    assert parts.hostname is not None
    assert parts.port is not None
    proxy = TcpFaultProxy(parts.hostname, parts.port)
    netloc = f"{parts.username}@127.0.0.1:{proxy.port}"
    yield proxy, urlunsplit(parts._replace(netloc=netloc))
    proxy.close()


def _assert_503(response: Any) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "service_unavailable"
    assert set(body) <= PROBLEM_KEYS
    assert body["correlation_id"] == response.headers["X-Correlation-Id"]


def _counts(sql: Any) -> tuple[int, int]:
    """(messages, audit rows): what a failed request must not change."""
    return (
        int(sql("SELECT count(*) FROM messages")[0][0]),
        int(sql("SELECT count(*) FROM audit_log")[0][0]),
    )


def _rewrite(change: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    def transform(body: bytes) -> bytes:
        document = json.loads(body)
        change(document["result"])
        return json.dumps(document).encode()

    return transform


# The transforms work whether ``classes`` is keyed by message id or a list in input
# order, so they outlive a change of the batch's layout.


def _class_entries(classes: Any) -> list[Any]:
    return list(classes.values()) if isinstance(classes, dict) else list(classes)


def _drop_a_class(result: dict[str, Any]) -> None:
    classes = result["classes"]
    if isinstance(classes, dict):
        classes.pop(next(iter(classes)))
    else:
        classes.pop()


def _class_not_an_object(result: dict[str, Any]) -> None:
    classes = result["classes"]
    keys = list(classes) if isinstance(classes, dict) else range(len(classes))
    for key in keys:
        classes[key] = "trigger"


def _classes_not_an_object(result: dict[str, Any]) -> None:
    result["classes"] = "trigger"


def _result_not_an_object(result: dict[str, Any]) -> None:
    result.clear()
    result["readable"] = "everything"


def _role_outside_the_contract(result: dict[str, Any]) -> None:
    for klass in _class_entries(result["classes"]):
        klass["role"] = "admin"


def _trust_outside_the_contract(result: dict[str, Any]) -> None:
    for klass in _class_entries(result["classes"]):
        klass["trust"] = "trusted"


# ------------------------------------------------------- the context read's 2nd call


SECOND_CALL_FAULTS = [
    pytest.param(Drop(), id="opa-stopped-mid-call"),
    pytest.param(Delay(1.0), id="opa-paused-past-its-timeout"),
    pytest.param(Forward(transform=_rewrite(_drop_a_class)), id="missing-class"),
    pytest.param(Forward(transform=_rewrite(_class_not_an_object)), id="class-not-an-object"),
    pytest.param(Forward(transform=_rewrite(_classes_not_an_object)), id="classes-not-an-object"),
    pytest.param(Forward(transform=_rewrite(_result_not_an_object)), id="wrong-shape"),
    pytest.param(Forward(transform=_rewrite(_role_outside_the_contract)), id="role-outside"),
    pytest.param(Forward(transform=_rewrite(_trust_outside_the_contract)), id="trust-outside"),
]


@pytest.mark.parametrize("fault", SECOND_CALL_FAULTS)
def test_a_fault_at_the_second_opa_call_of_a_context_read_is_503_and_recovers(
    make_service: Any,
    ids: dict[str, str],
    sql: Any,
    opa_proxy: HttpFaultProxy,
    fault: Any,
) -> None:
    service = make_service(opa_url=opa_proxy.url, **{"opa.timeout_seconds": 0.3})
    lotse = service.client("tok-lotse")
    path = f"/api/v1/runs/{ids['r1']}/context"
    assert lotse.get(path).status_code == 200
    before = _counts(sql)
    calls = opa_proxy.requests

    opa_proxy.then(Forward(), fault)
    _assert_503(lotse.get(path))

    assert opa_proxy.requests - calls == 2  # data.authz.decision, then runcontext.evaluate
    assert _counts(sql) == before
    recovered = lotse.get(path)
    assert recovered.status_code == 200
    assert recovered.json()["run_id"] == ids["r1"]


def test_opa_refusing_connections_between_the_two_calls_is_503_and_recovers(
    make_service: Any, ids: dict[str, str], sql: Any, opa_proxy: HttpFaultProxy
) -> None:
    service = make_service(opa_url=opa_proxy.url)
    lotse = service.client("tok-lotse")
    path = f"/api/v1/runs/{ids['r1']}/context"
    before = _counts(sql)

    opa_proxy.then(Forward(), Forward(before=opa_proxy.refuse))
    _assert_503(lotse.get(path))
    _assert_503(lotse.get(path))  # still down: refused at the first call

    assert _counts(sql) == before
    opa_proxy.accept()
    assert lotse.get(path).status_code == 200


# ------------------------------------------------------------------ writes


def test_opa_paused_past_its_timeout_on_a_post_is_503_and_writes_nothing(
    make_service: Any, ids: dict[str, str], sql: Any, opa_proxy: HttpFaultProxy
) -> None:
    service = make_service(opa_url=opa_proxy.url, **{"opa.timeout_seconds": 0.3})
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])
    before = _counts(sql)

    opa_proxy.then(Delay(1.0))
    _assert_503(sam.post(general, json={"content_md": "during the pause"}))

    assert _counts(sql) == before
    assert sam.post(general, json={"content_md": "after the pause"}).status_code == 201


def test_a_retried_post_after_a_fault_is_stored_exactly_once(
    make_service: Any, ids: dict[str, str], sql: Any, opa_proxy: HttpFaultProxy
) -> None:
    service = make_service(opa_url=opa_proxy.url)
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])
    post = {"content_md": "Status note for Robin", "client_request_id": "retry-after-fault-1"}

    opa_proxy.then(Drop())
    _assert_503(sam.post(general, json=post))
    first = sam.post(general, json=post)
    again = sam.post(general, json=post)

    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]
    rows = sql(
        "SELECT count(*) FROM messages WHERE client_request_id = :key", key="retry-after-fault-1"
    )
    assert rows[0][0] == 1


# -------------------------------------------------------------- PostgreSQL


def test_postgresql_stopped_mid_post_is_503_writes_nothing_and_recovers(
    make_service: Any,
    ids: dict[str, str],
    sql: Any,
    opa_proxy: HttpFaultProxy,
    pg_proxy: tuple[TcpFaultProxy, str],
) -> None:
    pg, url = pg_proxy
    service = make_service(opa_url=opa_proxy.url, **{"database.url": url})
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])
    assert sam.get(general).status_code == 200
    before = _counts(sql)

    # The token lookup and the facts are read; PostgreSQL goes away while OPA decides.
    opa_proxy.then(Forward(before=pg.cut))
    _assert_503(sam.post(general, json={"content_md": "lost in the outage"}))

    assert _counts(sql) == before
    pg.restore()
    assert sam.post(general, json={"content_md": "after the outage"}).status_code == 201
    assert sam.get(general).status_code == 200


def test_postgresql_stopped_mid_context_read_is_503_and_recovers(
    make_service: Any,
    ids: dict[str, str],
    sql: Any,
    opa_proxy: HttpFaultProxy,
    pg_proxy: tuple[TcpFaultProxy, str],
) -> None:
    pg, url = pg_proxy
    service = make_service(opa_url=opa_proxy.url, **{"database.url": url})
    lotse = service.client("tok-lotse")
    path = f"/api/v1/runs/{ids['r1']}/context"
    assert lotse.get(path).status_code == 200
    before = _counts(sql)

    opa_proxy.then(Forward(before=pg.cut))  # during data.authz.decision
    _assert_503(lotse.get(path))

    assert _counts(sql) == before
    pg.restore()
    assert lotse.get(path).status_code == 200
