"""The keep-alive pool to OPA: framing, reuse, dropped connections, limits, failures.

A scripted server on a real loopback socket answers each request with bytes the test
chooses, so the pool meets what a real server can send: lengths, chunks, a body that
ends with the connection, a connection closed while idle, a truncated answer, bytes
that are not HTTP.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httptools
import pytest

from app.opa_transport import KeepAlivePool

JSON = {"Content-Type": "application/json"}


@dataclass
class Received:
    """One request as the server parsed it."""

    connection: int
    method: str
    url: str
    headers: dict[str, str]
    body: bytes


class _Request:
    def __init__(self) -> None:
        self.url = b""
        self.headers: dict[str, str] = {}
        self.body = b""
        self.complete = False

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode().lower()] = value.decode()

    def on_body(self, body: bytes) -> None:
        self.body += body

    def on_message_complete(self) -> None:
        self.complete = True


# What the server does with a request: the bytes it answers and whether it closes.
Script = Callable[[Received], tuple[bytes, bool]]


@dataclass
class ScriptedServer:
    """Answers requests by ``script``; counts connections and records requests."""

    script: Script
    received: list[Received] = field(default_factory=list)
    connections: int = 0

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            number = self.connections
            threading.Thread(target=self._serve, args=(conn, number), daemon=True).start()

    def _serve(self, conn: socket.socket, number: int) -> None:
        with conn:
            while True:
                request = _Request()
                parser = httptools.HttpRequestParser(request)
                while not request.complete:
                    data = conn.recv(65536)
                    if not data:
                        return
                    parser.feed_data(data)
                received = Received(
                    number, parser.get_method().decode(), request.url.decode(),
                    request.headers, request.body,
                )  # fmt: skip
                self.received.append(received)
                answer, close = self.script(received)
                conn.sendall(answer)
                if close:
                    return

    def close(self) -> None:
        self._listener.close()


def ok(body: bytes = b'{"result":true}', extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


Serve = Callable[[Script], ScriptedServer]


@pytest.fixture
def serve() -> Iterator[Serve]:
    servers: list[ScriptedServer] = []

    def start(script: Script) -> ScriptedServer:
        server = ScriptedServer(script)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def pool_for(server: ScriptedServer, maxsize: int = 4, timeout: float = 2.0) -> KeepAlivePool:
    return KeepAlivePool("127.0.0.1", server.port, maxsize=maxsize, timeout=timeout)


def test_a_request_carries_its_line_host_headers_length_and_body(serve: Serve) -> None:
    server = serve(lambda _r: (ok(), False))
    pool = pool_for(server)

    answer = pool.urlopen("POST", "/v1/data/a/b", body=b'{"input":{}}', headers=JSON)

    assert (answer.status, answer.data) == (200, b'{"result":true}')
    [request] = server.received
    assert (request.method, request.url, request.body) == ("POST", "/v1/data/a/b", b'{"input":{}}')
    assert request.headers["host"] == f"127.0.0.1:{server.port}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["content-length"] == "12"


def test_calls_reuse_one_kept_alive_connection(serve: Serve) -> None:
    server = serve(lambda _r: (ok(), False))
    pool = pool_for(server)

    for _ in range(5):
        assert pool.urlopen("POST", "/x", body=b"{}", headers=JSON).status == 200

    assert server.connections == 1
    assert {r.connection for r in server.received} == {1}


def test_a_connection_the_server_closed_while_idle_is_replaced_not_failed(
    serve: Serve,
) -> None:
    # The server answers and then closes without saying so (as a restarted OPA does).
    server = serve(lambda _r: (ok(), True))
    pool = pool_for(server)

    pool.urlopen("POST", "/x", body=b"{}", headers=JSON)
    time.sleep(0.05)  # the server's FIN arrives
    answer = pool.urlopen("POST", "/x", body=b"{}", headers=JSON)

    assert answer.status == 200
    assert server.connections == 2
    assert len(server.received) == 2


def test_an_answer_with_connection_close_is_not_reused(serve: Serve) -> None:
    server = serve(lambda _r: (ok(extra="Connection: close\r\n"), True))
    pool = pool_for(server)

    for _ in range(3):
        assert pool.urlopen("POST", "/x", body=b"{}", headers=JSON).status == 200

    assert server.connections == 3


def test_a_chunked_answer_is_read_whole(serve: Serve) -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    body = head + b'4\r\n{"re\r\nb\r\nsult":true}\r\n0\r\n\r\n'
    server = serve(lambda _r: (body, False))
    pool = pool_for(server)

    answer = pool.urlopen("POST", "/x", body=b"{}", headers=JSON)

    assert answer.data == b'{"result":true}'
    pool.urlopen("POST", "/x", body=b"{}", headers=JSON)
    assert server.connections == 1


def test_a_body_ending_with_the_connection_is_read_whole(serve: Serve) -> None:
    server = serve(lambda _r: (b'HTTP/1.1 200 OK\r\n\r\n{"result":1}', True))
    pool = pool_for(server)

    answer = pool.urlopen("POST", "/x", body=b"{}", headers=JSON)

    assert (answer.status, answer.data) == (200, b'{"result":1}')


def test_an_error_status_is_returned_with_its_body(serve: Serve) -> None:
    server = serve(lambda _r: (b"HTTP/1.1 500 Internal\r\nContent-Length: 2\r\n\r\n{}", False))

    answer = pool_for(server).urlopen("POST", "/x", body=b"{}", headers=JSON)

    assert (answer.status, answer.data) == (500, b"{}")


@pytest.mark.parametrize(
    "answer",
    [
        b'HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{"res',  # cut short
        b"HTTP/1.1 200 OK\r\nContent-Le",  # cut inside the headers
        b"",  # closed without a byte
    ],
)
def test_an_answer_cut_short_raises_oserror_and_is_not_kept(serve: Serve, answer: bytes) -> None:
    server = serve(lambda _r: (answer, True))
    pool = pool_for(server)

    with pytest.raises(ConnectionResetError):
        pool.urlopen("POST", "/x", body=b"{}", headers=JSON)

    assert pool._idle == []


def test_bytes_that_are_not_http_raise_connection_error(serve: Serve) -> None:
    server = serve(lambda _r: (b"SSH-2.0-OpenSSH\r\n\r\n", False))

    with pytest.raises(ConnectionError, match=r"not an HTTP/1\.1 answer"):
        pool_for(server).urlopen("POST", "/x", body=b"{}", headers=JSON)


def test_a_slow_answer_raises_timeout_error_within_the_read_timeout(serve: Serve) -> None:
    def slow(_r: Received) -> tuple[bytes, bool]:
        time.sleep(1.0)
        return ok(), False

    pool = pool_for(serve(slow), timeout=0.2)

    started = time.monotonic()
    with pytest.raises(TimeoutError):
        pool.urlopen("POST", "/x", body=b"{}", headers=JSON)
    assert time.monotonic() - started < 0.9


def test_a_caller_beyond_maxsize_waits_for_a_connection_then_times_out(
    serve: Serve,
) -> None:
    release = threading.Event()

    def held(_r: Received) -> tuple[bytes, bool]:
        release.wait(5)
        return ok(), False

    server = serve(held)
    pool = pool_for(server, maxsize=1)
    first = threading.Thread(target=lambda: pool.urlopen("POST", "/x", body=b"{}", headers=JSON))
    first.start()
    while not server.received:
        time.sleep(0.01)

    with pytest.raises(TimeoutError, match="no pooled connection"):
        pool.urlopen("POST", "/x", body=b"{}", headers=JSON, pool_timeout=0.1)
    release.set()
    first.join()

    assert server.connections == 1


def test_concurrent_callers_share_at_most_maxsize_connections(serve: Serve) -> None:
    server = serve(lambda _r: (ok(), False))
    pool = pool_for(server, maxsize=2)
    failures: list[BaseException] = []

    def calls() -> None:
        try:
            for _ in range(10):
                pool.urlopen("POST", "/x", body=b"{}", headers=JSON)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=calls) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(server.received) == 60
    assert server.connections <= 2


def test_a_refused_connection_raises_oserror() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()

    with pytest.raises(ConnectionRefusedError):
        KeepAlivePool("127.0.0.1", port, maxsize=1, timeout=1.0).urlopen("POST", "/x")


def test_retries_are_refused() -> None:
    with pytest.raises(ValueError, match="never retries"):
        KeepAlivePool("127.0.0.1", 1, maxsize=1, timeout=1.0).urlopen("POST", "/x", retries=3)


def test_a_pool_needs_room_for_a_connection() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        KeepAlivePool("127.0.0.1", 1, maxsize=0, timeout=1.0)


def test_close_closes_idle_connections_and_ends_the_pool(serve: Serve) -> None:
    server = serve(lambda _r: (ok(), False))
    pool = pool_for(server)
    pool.urlopen("POST", "/x", body=b"{}", headers=JSON)
    [idle] = pool._idle

    pool.close()

    assert idle.fileno() == -1
    with pytest.raises(ConnectionError, match="closed"):
        pool.urlopen("POST", "/x", body=b"{}", headers=JSON)


def test_timeouts_come_from_a_number_or_a_urllib3_timeout(serve: Serve) -> None:
    import urllib3

    def slow(_r: Received) -> tuple[bytes, bool]:
        time.sleep(0.5)
        return ok(), False

    pool = pool_for(serve(slow), timeout=5.0)
    for timeout in (0.1, urllib3.Timeout(connect=1.0, read=0.1)):
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            pool.urlopen("POST", "/x", body=b"{}", headers=JSON, timeout=timeout)
        assert time.monotonic() - started < 0.45
