"""A scripted HTTP/1.1 server on a real loopback socket, for testing HTTP clients.

Each request is parsed (httptools) and recorded; a script chooses the exact bytes of
the answer and whether the connection closes after it, so a test can send what a real
server can: lengths, chunks, a body that ends with the connection, an idle connection
closed, a truncated answer, bytes that are not HTTP.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httptools

__all__ = ["Received", "Script", "ScriptedServer", "framed"]


@dataclass
class Received:
    """One request as the server parsed it."""

    connection: int
    method: str
    url: str
    headers: dict[str, str]
    body: bytes

    @property
    def input(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


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


def framed(status: int, body: bytes, extra: str = "") -> bytes:
    """An answer with a Content-Length (what OPA sends)."""
    return (
        f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


@dataclass
class ScriptedServer:
    """Answers requests by ``script``; counts connections and records requests."""

    script: Script = lambda _r: (framed(200, b'{"result": true}'), False)
    received: list[Received] = field(default_factory=list)
    connections: int = 0

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def answer(self, status: int, body: Any, delay: float = 0.0) -> None:
        """Answer every request with ``status`` and ``body`` (JSON unless bytes)."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()

        def script(_request: Received) -> tuple[bytes, bool]:
            time.sleep(delay)
            return framed(status, data), False

        self.script = script

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
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    parser.feed_data(data)
                received = Received(
                    number, parser.get_method().decode(), request.url.decode(),
                    request.headers, request.body,
                )  # fmt: skip
                self.received.append(received)
                answer, close = self.script(received)
                try:
                    conn.sendall(answer)
                except OSError:
                    return
                if close:
                    return

    def close(self) -> None:
        """Stop accepting connections (open ones end with the test process)."""
        self._listener.close()
