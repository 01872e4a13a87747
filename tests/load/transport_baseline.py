"""BASELINE KEPT FOR MEASUREMENT ONLY: the hand-written OPA transport the app used to run.

A verbatim copy of ``app/opa_transport.KeepAlivePool`` as it was before issue 23
(ADR 0016, superseded by ADR 0021): a keep-alive HTTP/1.1 pool that writes requests
itself and parses answers with httptools. The service no longer imports it; only
``tests/load/transport.py`` does, to measure urllib3's pool against it. Do not use it
in product code and do not fix it: it is what the library path is compared with.
"""

from __future__ import annotations

import select
import socket
import threading
from dataclasses import dataclass
from typing import Any

import httptools

__all__ = ["KeepAlivePool", "Response"]

_RECEIVE_BYTES = 65536


@dataclass(frozen=True, slots=True)
class Response:
    """One answer: its status and whole body (what the client reads of urllib3's)."""

    status: int
    data: bytes


class _Answer:
    """httptools callbacks collecting one response body."""

    __slots__ = ("complete", "delimited", "headers_complete", "keep_alive", "parser", "parts")

    def __init__(self) -> None:
        self.parser: httptools.HttpResponseParser | None = None
        self.parts: list[bytes] = []
        # Read when the headers end: after the message, llhttp has reset and says no.
        self.keep_alive = False
        self.complete = False
        self.headers_complete = False
        # A length or chunked framing; without either the body ends with the connection.
        self.delimited = False

    def on_header(self, name: bytes, _value: bytes) -> None:
        if name.lower() in (b"content-length", b"transfer-encoding"):
            self.delimited = True

    def on_headers_complete(self) -> None:
        self.headers_complete = True
        self.keep_alive = self.parser is not None and self.parser.should_keep_alive()

    def on_body(self, chunk: bytes) -> None:
        self.parts.append(chunk)

    def on_message_complete(self) -> None:
        self.complete = True


def _timeouts(timeout: Any, default: float) -> tuple[float, float]:
    """Connect and read timeouts from a number or a ``urllib3.Timeout`` (the client's)."""
    if isinstance(timeout, int | float):
        return float(timeout), float(timeout)
    if timeout is None:
        return default, default
    connect = getattr(timeout, "connect_timeout", None)
    read = getattr(timeout, "read_timeout", None)
    return (
        float(connect) if isinstance(connect, int | float) else default,
        float(read) if isinstance(read, int | float) else default,
    )


def _dropped(sock: socket.socket) -> bool:
    """Whether an idle connection is unusable: readable means closed by the server or
    holding bytes nobody asked for; either way it must not carry a request."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


class KeepAlivePool:
    """Keep-alive HTTP/1.1 connections to one ``host``:``port``; thread-safe.

    Args:
        host: the server's host name or address.
        port: its TCP port.
        maxsize: connections open at most (in use and idle together).
        timeout: seconds for connecting and for each read, unless a call gives its own.

    Example::

        pool = KeepAlivePool("127.0.0.1", 8181, maxsize=16, timeout=0.5)
        answer = pool.urlopen("POST", "/v1/data/example/allow", body=b'{"input":{}}',
                              headers={"Content-Type": "application/json"})
    """

    def __init__(self, host: str, port: int, *, maxsize: int, timeout: float) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._address = (host, port)
        authority = f"[{host}]" if ":" in host else host
        self._host_line = f"Host: {authority}:{port}\r\n".encode("latin-1")
        self._timeout = timeout
        self._slots = threading.BoundedSemaphore(maxsize)
        self._lock = threading.Lock()
        self._idle: list[socket.socket] = []
        self._closed = False

    def urlopen(
        self,
        method: str,
        url: str,
        *,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        timeout: Any = None,
        retries: Any = False,
        pool_timeout: float | None = None,
    ) -> Response:
        """Send one request and read its whole answer.

        ``retries`` is accepted for the client's call shape and must be false: a
        request is never sent twice.

        Raises:
            TimeoutError: no connection became free within ``pool_timeout``, or
                connecting or a read took longer than its timeout.
            OSError: the connection failed or closed, or the answer is not HTTP/1.1.
            ValueError: ``retries`` asks for retries.
        """
        if retries:
            raise ValueError("this pool never retries a request")
        connect_timeout, read_timeout = _timeouts(timeout, self._timeout)
        wait = self._timeout if pool_timeout is None else pool_timeout
        if not self._slots.acquire(timeout=wait):
            raise TimeoutError("no pooled connection became free")
        try:
            sock = self._take(connect_timeout)
            try:
                answer, keep_alive = self._exchange(
                    sock, self._request(method, url, body, headers or {}), read_timeout
                )
            except BaseException:
                sock.close()
                raise
            self._give(sock) if keep_alive else sock.close()
            return answer
        finally:
            self._slots.release()

    def close(self) -> None:
        """Close the idle connections; connections in use close when they come back."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for sock in idle:
            sock.close()

    def _request(self, method: str, url: str, body: bytes, headers: dict[str, str]) -> bytes:
        lines = [f"{method} {url} HTTP/1.1\r\n".encode("latin-1"), self._host_line]
        lines.extend(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers.items())
        lines.append(b"Content-Length: %d\r\n\r\n" % len(body))
        lines.append(body)
        return b"".join(lines)

    def _take(self, connect_timeout: float) -> socket.socket:
        while True:
            with self._lock:
                if self._closed:
                    raise ConnectionError("the OPA connection pool is closed")
                sock = self._idle.pop() if self._idle else None
            if sock is None:
                sock = socket.create_connection(self._address, timeout=connect_timeout)
                # One write per request; no Nagle delay waiting for an ACK on loopback.
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            if not _dropped(sock):
                return sock
            sock.close()

    def _give(self, sock: socket.socket) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(sock)
                return
        sock.close()

    @staticmethod
    def _exchange(
        sock: socket.socket, request: bytes, read_timeout: float
    ) -> tuple[Response, bool]:
        sock.settimeout(read_timeout)
        sock.sendall(request)
        answer = _Answer()
        parser = httptools.HttpResponseParser(answer)
        answer.parser = parser
        try:
            while not answer.complete:
                chunk = sock.recv(_RECEIVE_BYTES)
                if chunk:
                    parser.feed_data(chunk)
                elif answer.headers_complete and not answer.delimited:
                    # A body without length or chunks ends with the connection (RFC 9112).
                    return Response(parser.get_status_code(), b"".join(answer.parts)), False
                else:
                    raise ConnectionResetError("the connection closed before the answer ended")
        except httptools.HttpParserError as exc:
            raise ConnectionError(f"not an HTTP/1.1 answer: {type(exc).__name__}") from exc
        finally:
            answer.parser = None  # no cycle for the collector to find
        status = parser.get_status_code()
        return Response(status, b"".join(answer.parts)), answer.keep_alive
