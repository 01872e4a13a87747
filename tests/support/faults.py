"""Controllable fault proxies for the fault-injection tests.

:class:`HttpFaultProxy` stands in front of the real OPA (or any HTTP server) on
127.0.0.1 and handles each request by the next queued action, forwarding by default:

* :class:`Forward` passes the request on; ``transform`` may rewrite the answer's body
  and ``before`` runs a callback first (e.g. cut PostgreSQL while the decision is
  being made, i.e. in the middle of the app's request);
* :class:`Drop` closes the connection without an answer (OPA stopped mid-call);
* :class:`Delay` waits ``seconds`` before forwarding (OPA paused past its timeout).

``refuse()`` closes the listening socket and every open connection (new connections
are refused: OPA down), ``accept()`` listens again on the same port.

:class:`TcpFaultProxy` forwards raw TCP (PostgreSQL) and can ``cut()`` every
connection and refuse new ones until ``restore()``.

:class:`StubOpa` stands in for OPA itself and answers every query the same way
(``StubOpa.result(value)`` for a well-formed answer with a chosen result).

Example::

    with HttpFaultProxy(opa_server.url) as opa:
        service = make_service(opa_url=opa.url)
        opa.then(Forward(), Drop())      # first decision answered, second call dies
        ...
        assert opa.requests == 2
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

__all__ = ["Delay", "Drop", "Forward", "HttpFaultProxy", "StubOpa", "TcpFaultProxy"]


@dataclass(frozen=True)
class Forward:
    """Pass the request on; optionally run ``before`` first and rewrite the answer."""

    transform: Callable[[bytes], bytes] | None = None
    before: Callable[[], None] | None = None


@dataclass(frozen=True)
class Drop:
    """Close the connection without answering."""


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds``, then forward (the client has usually given up by then)."""

    seconds: float


Action = Forward | Drop | Delay


class HttpFaultProxy:
    """A threaded HTTP/1.1 proxy with a queue of faults (see the module docstring)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._actions: deque[Action] = deque()
        self._lock = threading.Lock()
        self._session = requests.Session()
        self._session.trust_env = False
        self.requests = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self.port = 0
        self.accept()

    # -------------------------------------------------------------- control

    @property
    def url(self) -> str:
        """Base URL of the proxy."""
        return f"http://127.0.0.1:{self.port}"

    def then(self, *actions: Action) -> None:
        """Queue actions for the next requests, in order; afterwards requests are forwarded."""
        with self._lock:
            self._actions.extend(actions)

    def refuse(self) -> None:
        """Stop listening and close every open connection: new connections are refused."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        with self._lock:
            connections, self._connections = self._connections, set()
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def accept(self) -> None:
        """Listen (again, on the same port once one was chosen) and forward."""
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with proxy._lock:
                    proxy._connections.add(self.connection)

            def do_POST(self) -> None:
                proxy._handle(self)

            def do_GET(self) -> None:
                proxy._handle(self)

            def log_message(self, *_args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = int(server.server_address[1])
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the proxy for good."""
        self.refuse()
        self._session.close()

    def __enter__(self) -> HttpFaultProxy:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- serving

    def _next_action(self) -> Action:
        with self._lock:
            self.requests += 1
            return self._actions.popleft() if self._actions else Forward()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        body = handler.rfile.read(length) if length else b""
        action = self._next_action()
        if isinstance(action, Drop):
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(action, Delay):
            time.sleep(action.seconds)
        if isinstance(action, Forward) and action.before is not None:
            action.before()
        upstream = self._session.request(
            handler.command,
            self.upstream + handler.path,
            data=body,
            headers={"Content-Type": handler.headers.get("Content-Type", "application/json")},
            timeout=30,
        )
        answer = upstream.content
        if isinstance(action, Forward) and action.transform is not None:
            answer = action.transform(answer)
        try:
            handler.send_response(upstream.status_code)
            handler.send_header("Content-Type", upstream.headers.get("Content-Type", ""))
            handler.send_header("Content-Length", str(len(answer)))
            handler.end_headers()
            handler.wfile.write(answer)
        except OSError:
            handler.close_connection = True  # the client gave up (timeout): fine


class TcpFaultProxy:
    """Raw TCP forwarding to ``host:port`` with ``cut()`` and ``restore()``."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = 0
        self.restore()

    def restore(self) -> None:
        """Listen (again, on the same port) and forward new connections."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = int(listener.getsockname()[1])
        self._listener = listener
        threading.Thread(target=self._accept_loop, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Close every forwarded connection and stop listening (connections refused)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        """Stop for good."""
        self.cut()

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._sockets.update((client, server))
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class StubOpa:
    """A local HTTP server standing in for OPA with one fixed answer to every query.

    ``status`` and ``body`` are sent as they are (bad ones included) after ``delay``
    seconds; ``requests`` counts the queries. Use it as a context manager.
    """

    def __init__(self, status: int, body: bytes, delay: float = 0.0) -> None:
        stub = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                stub.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if delay:
                    time.sleep(delay)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @classmethod
    def result(cls, value: Any) -> StubOpa:
        """A stub answering 200 with ``{"result": value}`` (a decision or garbage)."""
        return cls(200, json.dumps({"result": value}).encode())

    @property
    def url(self) -> str:
        """Base URL of the stub."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> StubOpa:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
