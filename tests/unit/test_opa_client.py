"""The thin OPA client: one POST per query, every failure is OpaUnavailable."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import urllib3

from app.opa_client import (
    Evaluation,
    OpaClient,
    OpaError,
    OpaMalformed,
    OpaUnavailable,
    OpaUndefined,
)
from app.opa_transport import KeepAlivePool
from tests.support.services import free_port

CANARY = "input-canary-content-3b7"


class Stub:
    """A local HTTP server answering every POST with a fixed status and body."""

    def __init__(self) -> None:
        self.status = 200
        self.body = b'{"result": true}'
        self.delay = 0.0
        self.seen: list[tuple[str, Any, str]] = []
        self.correlation_ids: list[str | None] = []
        self.traced = False
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stub.seen.append((self.path, json.loads(raw), self.headers["Content-Type"]))
                stub.correlation_ids.append(self.headers.get("X-Correlation-Id"))
                if stub.delay:
                    time.sleep(stub.delay)
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(stub.body)))
                self.end_headers()
                self.wfile.write(stub.body)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, status: int, body: Any, delay: float = 0.0) -> None:
        self.status = status
        self.body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.delay = delay


@pytest.fixture(params=[False, True], ids=["keep-alive pool", "urllib3 pool (traced)"])
def stub(request: pytest.FixtureRequest) -> Iterator[Stub]:
    """The stub server, once per default pool: the client's own, and urllib3's (tracing on)."""
    server = Stub()
    server.traced = request.param
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_a_query_posts_the_input_to_the_data_path_and_returns_the_result(stub: Stub) -> None:
    stub.answer(200, {"result": {"allow": True, "reason": "allowed", "status": 200}})
    client = OpaClient(stub.url + "/", traced=stub.traced, timeout=2.0)

    result = client.query("authz/decision", {"action": "health.ready", "n": [1, 2]})

    assert result == {"allow": True, "reason": "allowed", "status": 200}
    assert stub.seen == [
        (
            "/v1/data/authz/decision",
            {"input": {"action": "health.ready", "n": [1, 2]}},
            "application/json",
        )
    ]


def test_an_evaluation_asks_for_provenance_and_carries_the_correlation_id(stub: Stub) -> None:
    provenance = {"version": "1.22.3", "bundles": {"agent-authz": {"revision": "4f1c2ab"}}}
    stub.answer(200, {"decision_id": "d1", "provenance": provenance, "result": {"allow": True}})
    client = OpaClient(stub.url, traced=stub.traced, timeout=2.0)

    answer = client.evaluate("authz/decision", {"n": 1}, correlation_id="corr-4242-abcd")
    plain = client.query("authz/decision", {"n": 2})

    assert answer == Evaluation(result={"allow": True}, provenance=provenance)
    assert plain == {"allow": True}
    assert [path for path, _, _ in stub.seen] == [
        "/v1/data/authz/decision?provenance=true",
        "/v1/data/authz/decision",
    ]
    assert stub.correlation_ids == ["corr-4242-abcd", None]


def test_an_evaluation_without_provenance_or_correlation_id_says_so(stub: Stub) -> None:
    stub.answer(200, {"result": 3})
    client = OpaClient(stub.url, traced=stub.traced, timeout=2.0)

    assert client.evaluate("x/y", {}) == Evaluation(result=3, provenance=None)
    assert stub.correlation_ids == [None]


def test_an_undefined_evaluation_raises_opa_undefined(stub: Stub) -> None:
    stub.answer(200, {"provenance": {"version": "1.22.3"}})

    with pytest.raises(OpaUndefined):
        OpaClient(stub.url, traced=stub.traced, timeout=2.0).evaluate("authz/decision", {})


@pytest.mark.parametrize("result", [False, [], {}, 0, ""])
def test_a_defined_falsy_result_is_returned_not_treated_as_undefined(
    stub: Stub, result: Any
) -> None:
    stub.answer(200, {"result": result})

    assert OpaClient(stub.url, traced=stub.traced, timeout=2.0).query("x/y", {}) == result


@pytest.mark.parametrize(
    "body",
    [{}, {"decision_id": "abc"}, {"warning": {"code": "api_usage_warning"}}],
)
def test_an_undefined_result_raises_opa_undefined(stub: Stub, body: Any) -> None:
    stub.answer(200, body)

    with pytest.raises(OpaUndefined):
        OpaClient(stub.url, traced=stub.traced, timeout=2.0).query("authz/decision", {})


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, {"code": "internal_error", "message": "eval error"}),
        (400, {"code": "invalid_parameter"}),
        (404, {"code": "resource_not_found"}),
        (503, b"unavailable"),
        (200, b"<html>not json</html>"),
        (200, [1, 2]),
        (200, b""),
    ],
)
def test_an_error_status_or_a_body_without_a_result_object_raises_unavailable(
    stub: Stub, status: int, body: Any
) -> None:
    stub.answer(status, body)

    with pytest.raises(OpaUnavailable):
        OpaClient(stub.url, traced=stub.traced, timeout=2.0).query("authz/decision", {})


def test_a_slow_answer_raises_unavailable_after_the_timeout(stub: Stub) -> None:
    stub.answer(200, {"result": True}, delay=1.0)
    client = OpaClient(stub.url, traced=stub.traced, timeout=0.2)

    started = time.monotonic()
    with pytest.raises(OpaUnavailable, match="Timeout"):
        client.query("authz/decision", {})

    assert time.monotonic() - started < 0.9


@pytest.mark.parametrize("traced", [False, True])
def test_an_unreachable_server_raises_unavailable(traced: bool) -> None:
    client = OpaClient(f"http://127.0.0.1:{free_port()}", timeout=1.0, traced=traced)

    with pytest.raises(OpaUnavailable, match="unreachable"):
        client.query("authz/decision", {})


def test_every_error_is_an_opa_error() -> None:
    assert issubclass(OpaUndefined, OpaUnavailable)
    assert issubclass(OpaMalformed, OpaUnavailable)
    assert issubclass(OpaUnavailable, OpaError)


def test_calls_are_counted_whether_they_succeed_or_fail(stub: Stub) -> None:
    client = OpaClient(stub.url, traced=stub.traced, timeout=2.0)
    assert client.calls == 0

    client.query("a/b", {})
    stub.answer(500, {})
    with pytest.raises(OpaUnavailable):
        client.query("a/b", {})
    stub.answer(200, {})
    with pytest.raises(OpaUnavailable):
        client.query("a/b", {})

    assert client.calls == 3


def test_calls_are_counted_exactly_under_concurrency(stub: Stub) -> None:
    client = OpaClient(stub.url, traced=stub.traced, timeout=5.0, pool_size=4)

    threads = [
        threading.Thread(target=lambda: [client.query("a/b", {}) for _ in range(5)])
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert client.calls == 40
    assert len(stub.seen) == 40


def test_errors_name_the_path_but_never_the_input(stub: Stub) -> None:
    client = OpaClient(stub.url, traced=stub.traced, timeout=0.2)
    failures: list[str] = []
    for status, body, delay in (
        (500, {"message": CANARY}, 0.0),
        (200, {}, 0.0),
        (200, b"x", 0.0),
        (200, {"result": 1}, 1.0),
    ):
        stub.answer(status, body, delay)
        with pytest.raises(OpaUnavailable) as caught:
            client.query("authz/decision", {"content": CANARY})
        failures.append(str(caught.value))

    for message in failures:
        assert "data/authz/decision" in message
        assert CANARY not in message


class FakeResponse:
    def __init__(self, status: int, data: bytes) -> None:
        self.status = status
        self.data = data


class FakePool:
    """A pool that records calls and answers from a script, without a network."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []
        self.closed = False

    def urlopen(self, method: str, url: str, **kwargs: Any) -> Any:
        self.calls.append({"method": method, "url": url, **kwargs})
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def close(self) -> None:
        self.closed = True


def test_an_injected_pool_gets_the_path_the_body_and_the_configured_timeout() -> None:
    pool = FakePool(FakeResponse(200, b'{"result": 7}'))
    client = OpaClient("http://opa:8181", timeout=0.75, pool_size=3, pool=pool)

    assert client.query("p/q", {"k": "v"}) == 7

    call = pool.calls[0]
    assert (call["method"], call["url"]) == ("POST", "/v1/data/p/q")
    assert call["retries"] is False
    assert call["timeout"].read_timeout == 0.75
    assert call["timeout"].connect_timeout == 0.75
    assert json.loads(call["body"]) == {"input": {"k": "v"}}


def test_a_base_url_with_a_path_prefix_keeps_it() -> None:
    pool = FakePool(FakeResponse(200, b'{"result": 1}'))
    client = OpaClient("http://opa:8181/sidecar/", timeout=1.0, pool=pool)

    client.query("a/b", {})

    assert pool.calls[0]["url"] == "/sidecar/v1/data/a/b"


def test_the_default_pool_is_the_keep_alive_pool_of_the_configured_size() -> None:
    client = OpaClient("http://127.0.0.1:8181", timeout=1.0, pool_size=3)

    pool: Any = client._pool
    assert isinstance(pool, KeepAlivePool)
    assert pool.maxsize == 3


@pytest.mark.parametrize(
    ("url", "traced"), [("http://127.0.0.1:8181", True), ("https://opa.example.com", False)]
)
def test_traced_or_https_clients_use_urllib3_with_the_size_and_no_retries(
    url: str, traced: bool
) -> None:
    client = OpaClient(url, timeout=1.0, pool_size=3, traced=traced)

    pool: Any = client._pool
    assert isinstance(pool, urllib3.HTTPConnectionPool)
    assert pool.pool is not None
    assert pool.pool.maxsize == 3
    assert pool.retries is False
    assert pool.block is True


@pytest.mark.parametrize(
    "failure",
    [
        urllib3.exceptions.NewConnectionError(None, "refused"),  # type: ignore[arg-type]
        urllib3.exceptions.ReadTimeoutError(None, "/", "slow"),  # type: ignore[arg-type]
        urllib3.exceptions.ProtocolError("cut"),
        urllib3.exceptions.EmptyPoolError(None, "busy"),  # type: ignore[arg-type]
        ConnectionResetError("reset"),
    ],
)
def test_a_transport_failure_of_the_pool_raises_unavailable(failure: Exception) -> None:
    client = OpaClient("http://opa:8181", timeout=1.0, pool=FakePool(failure))

    with pytest.raises(OpaUnavailable) as caught:
        client.query("authz/decision", {})

    assert type(failure).__name__ in str(caught.value)
    assert client.calls == 1


def test_a_body_that_does_not_parse_raises_unavailable_with_an_injected_pool() -> None:
    client = OpaClient("http://opa:8181", timeout=1.0, pool=FakePool(FakeResponse(200, b"{x")))

    with pytest.raises(OpaUnavailable, match="non-JSON"):
        client.query("authz/decision", {})


def test_the_same_pool_serves_every_call_and_close_closes_it() -> None:
    pool = FakePool(FakeResponse(200, b'{"result": 1}'), FakeResponse(200, b'{"result": 2}'))
    client = OpaClient("http://opa:8181", timeout=1.0, pool=pool)

    assert [client.query("a", {}), client.query("a", {})] == [1, 2]
    client.close()

    assert len(pool.calls) == 2
    assert pool.closed
