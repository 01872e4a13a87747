"""The OPA client: one POST per query over urllib3's pool, every failure is OpaUnavailable.

A scripted server on a real loopback socket (``tests/support/scripted_http.py``) answers
with the bytes a test chooses; fake pools stand in where only the client's own logic is
under test.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import urllib3

from app.opa_client import (
    Evaluation,
    OpaClient,
    OpaError,
    OpaHttpError,
    OpaMalformed,
    OpaTimeout,
    OpaUnavailable,
    OpaUndefined,
    default_pool,
)
from tests.support.scripted_http import ScriptedServer, framed
from tests.support.services import free_port

CANARY = "input-canary-content-3b7"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    started = ScriptedServer()
    yield started
    started.close()


def test_a_query_posts_the_input_to_the_data_path_and_returns_the_result(
    server: ScriptedServer,
) -> None:
    server.answer(200, {"result": {"allow": True, "reason": "allowed", "status": 200}})
    client = OpaClient(server.url + "/", timeout=2.0)

    result = client.query("authz/decision", {"action": "health.ready", "n": [1, 2]})

    assert result == {"allow": True, "reason": "allowed", "status": 200}
    [request] = server.received
    assert (request.method, request.url) == ("POST", "/v1/data/authz/decision")
    assert request.input == {"input": {"action": "health.ready", "n": [1, 2]}}
    assert request.headers["content-type"] == "application/json"
    assert request.headers["content-length"] == str(len(request.body))
    assert request.headers["host"] == f"127.0.0.1:{server.port}"


def test_an_evaluation_asks_for_provenance_and_carries_the_correlation_id(
    server: ScriptedServer,
) -> None:
    provenance = {"version": "1.22.3", "bundles": {"agent-authz": {"revision": "4f1c2ab"}}}
    server.answer(200, {"decision_id": "d1", "provenance": provenance, "result": {"allow": True}})
    client = OpaClient(server.url, timeout=2.0)

    answer = client.evaluate("authz/decision", {"n": 1}, correlation_id="corr-4242-abcd")
    plain = client.query("authz/decision", {"n": 2})

    assert answer == Evaluation(result={"allow": True}, provenance=provenance)
    assert plain == {"allow": True}
    assert [r.url for r in server.received] == [
        "/v1/data/authz/decision?provenance=true",
        "/v1/data/authz/decision",
    ]
    assert [r.headers.get("x-correlation-id") for r in server.received] == [
        "corr-4242-abcd",
        None,
    ]


def test_an_evaluation_without_provenance_or_correlation_id_says_so(
    server: ScriptedServer,
) -> None:
    server.answer(200, {"result": 3})
    client = OpaClient(server.url, timeout=2.0)

    assert client.evaluate("x/y", {}) == Evaluation(result=3, provenance=None)
    assert "x-correlation-id" not in server.received[0].headers


def test_an_undefined_evaluation_raises_opa_undefined(server: ScriptedServer) -> None:
    server.answer(200, {"provenance": {"version": "1.22.3"}})

    with pytest.raises(OpaUndefined):
        OpaClient(server.url, timeout=2.0).evaluate("authz/decision", {})


@pytest.mark.parametrize("result", [False, [], {}, 0, ""])
def test_a_defined_falsy_result_is_returned_not_treated_as_undefined(
    server: ScriptedServer, result: Any
) -> None:
    server.answer(200, {"result": result})

    assert OpaClient(server.url, timeout=2.0).query("x/y", {}) == result


@pytest.mark.parametrize(
    "body",
    [{}, {"decision_id": "abc"}, {"warning": {"code": "api_usage_warning"}}, [1, 2]],
)
def test_an_undefined_result_raises_opa_undefined(server: ScriptedServer, body: Any) -> None:
    server.answer(200, body)

    with pytest.raises(OpaUndefined):
        OpaClient(server.url, timeout=2.0).query("authz/decision", {})


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, {"code": "internal_error", "message": "eval error"}),
        (400, {"code": "invalid_parameter"}),
        (404, {"code": "resource_not_found"}),
        (503, b"unavailable"),
    ],
)
def test_an_error_status_raises_opa_http_error_with_the_status(
    server: ScriptedServer, status: int, body: Any
) -> None:
    server.answer(status, body)

    with pytest.raises(OpaHttpError) as caught:
        OpaClient(server.url, timeout=2.0).query("authz/decision", {})

    assert caught.value.status == status


@pytest.mark.parametrize("body", [b"<html>not json</html>", b""])
def test_a_body_that_is_not_json_raises_opa_malformed(server: ScriptedServer, body: bytes) -> None:
    server.answer(200, body)

    with pytest.raises(OpaMalformed, match="non-JSON"):
        OpaClient(server.url, timeout=2.0).query("authz/decision", {})


def test_a_slow_answer_raises_opa_timeout_after_the_timeout(server: ScriptedServer) -> None:
    server.answer(200, {"result": True}, delay=1.0)
    client = OpaClient(server.url, timeout=0.2)

    started = time.monotonic()
    with pytest.raises(OpaTimeout, match="Timeout"):
        client.query("authz/decision", {})

    assert time.monotonic() - started < 0.9


def test_an_unreachable_server_raises_unavailable_not_timeout() -> None:
    client = OpaClient(f"http://127.0.0.1:{free_port()}", timeout=1.0)

    with pytest.raises(OpaUnavailable, match="unreachable") as caught:
        client.query("authz/decision", {})

    assert not isinstance(caught.value, OpaTimeout)


def test_every_error_is_an_opa_error() -> None:
    for kind in (OpaTimeout, OpaHttpError, OpaUndefined, OpaMalformed):
        assert issubclass(kind, OpaUnavailable)
    assert issubclass(OpaUnavailable, OpaError)


def test_calls_are_counted_whether_they_succeed_or_fail(server: ScriptedServer) -> None:
    client = OpaClient(server.url, timeout=2.0)
    assert client.calls == 0

    client.query("a/b", {})
    server.answer(500, {})
    with pytest.raises(OpaUnavailable):
        client.query("a/b", {})
    server.answer(200, {})
    with pytest.raises(OpaUnavailable):
        client.query("a/b", {})

    assert client.calls == 3


def test_concurrent_calls_are_counted_exactly_and_share_at_most_pool_size_connections(
    server: ScriptedServer,
) -> None:
    client = OpaClient(server.url, timeout=5.0, pool_size=2)
    failures: list[BaseException] = []

    def calls() -> None:
        try:
            for _ in range(5):
                client.query("a/b", {})
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=calls) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert client.calls == 40
    assert len(server.received) == 40
    assert server.connections <= 2


def test_errors_name_the_path_but_never_the_input(server: ScriptedServer) -> None:
    client = OpaClient(server.url, timeout=0.2)
    failures: list[str] = []
    for status, body, delay in (
        (500, {"message": CANARY}, 0.0),
        (200, {}, 0.0),
        (200, b"x", 0.0),
        (200, {"result": 1}, 1.0),
    ):
        server.answer(status, body, delay)
        with pytest.raises(OpaUnavailable) as caught:
            client.query("authz/decision", {"content": CANARY})
        failures.append(str(caught.value))

    for message in failures:
        assert "data/authz/decision" in message
        assert CANARY not in message


def test_calls_reuse_one_kept_alive_connection(server: ScriptedServer) -> None:
    client = OpaClient(server.url, timeout=2.0)

    for _ in range(5):
        client.query("a/b", {})

    assert server.connections == 1


def test_a_connection_the_server_closed_while_idle_is_replaced_not_failed(
    server: ScriptedServer,
) -> None:
    # The server answers and then closes without saying so (as a restarted OPA does).
    server.script = lambda _r: (framed(200, b'{"result": 1}'), True)
    client = OpaClient(server.url, timeout=2.0)

    client.query("a/b", {})
    time.sleep(0.05)  # the server's FIN arrives
    assert client.query("a/b", {}) == 1

    assert server.connections == 2
    assert len(server.received) == 2


CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + (
    b'4\r\n{"re\r\n7\r\nsult":1\r\n1\r\n}\r\n0\r\n\r\n'
)


@pytest.mark.parametrize(
    ("answer", "close", "connections"),
    [
        (CHUNKED, False, 1),
        (framed(200, b'{"result": 1}', extra="Connection: close\r\n"), True, 3),
        (b'HTTP/1.1 200 OK\r\n\r\n{"result": 1}', True, 3),  # the body ends with the connection
    ],
    ids=["chunked", "connection close", "until closed"],
)
def test_every_framing_is_read_whole_and_a_connection_kept_only_when_the_answer_allows(
    server: ScriptedServer, answer: bytes, close: bool, connections: int
) -> None:
    server.script = lambda _r: (answer, close)
    client = OpaClient(server.url, timeout=2.0)

    assert [client.query("a/b", {}) for _ in range(3)] == [1, 1, 1]

    assert server.connections == connections


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (b'HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{"res', OpaUnavailable),  # cut short
        (b"", OpaUnavailable),  # closed without a byte
        (b"SSH-2.0-OpenSSH\r\n\r\n", OpaUnavailable),  # not HTTP
        # Cut inside the headers: urllib3 reads a 200 with an empty body.
        (b"HTTP/1.1 200 OK\r\nContent-Le", OpaMalformed),
    ],
)
def test_a_broken_answer_fails_closed_is_not_retried_and_not_kept(
    server: ScriptedServer, answer: bytes, kind: type[OpaUnavailable]
) -> None:
    server.script = lambda _r: (answer, True)
    client = OpaClient(server.url, timeout=2.0)

    with pytest.raises(OpaUnavailable) as caught:
        client.query("a/b", {})

    assert type(caught.value) is kind
    assert len(server.received) == 1
    server.script = lambda _r: (framed(200, b'{"result": 2}'), False)
    assert client.query("a/b", {}) == 2
    assert server.connections == 2


def test_a_caller_beyond_the_pool_size_waits_for_a_connection_then_times_out(
    server: ScriptedServer,
) -> None:
    pool = default_pool(server.url, size=1, timeout=0.3)
    client = OpaClient(server.url, timeout=0.3, pool=pool)
    # Another caller holds the only connection: its answer is not read yet.
    held = pool.urlopen("POST", "/v1/data/a/b", body=b"{}", preload_content=False)

    started = time.monotonic()
    with pytest.raises(OpaTimeout, match="EmptyPoolError"):
        client.query("a/b", {})
    waited = time.monotonic() - started
    held.read()
    held.release_conn()

    assert 0.25 <= waited < 1.0
    assert client.query("a/b", {}) is True
    assert server.connections == 1


def test_close_closes_the_pool(server: ScriptedServer) -> None:
    client = OpaClient(server.url, timeout=2.0)
    client.query("a/b", {})

    client.close()

    with pytest.raises(OpaUnavailable, match="ClosedPoolError"):
        client.query("a/b", {})
    assert len(server.received) == 1


@dataclass
class FakeResponse:
    status: int
    data: bytes


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
    assert call["pool_timeout"] == 0.75
    assert call["timeout"].read_timeout == 0.75
    assert call["timeout"].connect_timeout == 0.75
    assert json.loads(call["body"]) == {"input": {"k": "v"}}


def test_a_base_url_with_a_path_prefix_keeps_it() -> None:
    pool = FakePool(FakeResponse(200, b'{"result": 1}'))
    client = OpaClient("http://opa:8181/sidecar/", timeout=1.0, pool=pool)

    client.query("a/b", {})

    assert pool.calls[0]["url"] == "/sidecar/v1/data/a/b"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8181", "https://opa.example.com"])
def test_the_default_pool_is_urllib3s_with_the_size_blocking_and_no_retries(url: str) -> None:
    client = OpaClient(url, timeout=1.0, pool_size=3)

    pool: Any = client._pool
    assert isinstance(pool, urllib3.HTTPConnectionPool)
    assert pool.scheme == url.split(":")[0]
    assert pool.pool is not None
    assert pool.pool.maxsize == 3
    assert pool.retries is False
    assert pool.block is True
    assert (pool.timeout.connect_timeout, pool.timeout.read_timeout) == (1.0, 1.0)


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (urllib3.exceptions.NewConnectionError(None, "refused"), OpaUnavailable),  # type: ignore[arg-type]
        (urllib3.exceptions.ReadTimeoutError(None, "/", "slow"), OpaTimeout),  # type: ignore[arg-type]
        (urllib3.exceptions.ProtocolError("cut"), OpaUnavailable),
        (urllib3.exceptions.EmptyPoolError(None, "busy"), OpaTimeout),  # type: ignore[arg-type]
        (ConnectionResetError("reset"), OpaUnavailable),
        (TimeoutError("slow"), OpaTimeout),
    ],
)
def test_a_transport_failure_of_the_pool_raises_unavailable_or_timeout(
    failure: Exception, kind: type[OpaUnavailable]
) -> None:
    client = OpaClient("http://opa:8181", timeout=1.0, pool=FakePool(failure))

    with pytest.raises(OpaUnavailable) as caught:
        client.query("authz/decision", {})

    assert type(caught.value) is kind
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
