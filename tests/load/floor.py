"""The I/O floor of a context read: its statements and OPA calls alone, on raw drivers.

``make bench`` compares getRunContext with a bare OPA decision. This module says how
much of a context read no implementation on this host could avoid: the same SQL
statements with the same parameters and the same OPA inputs, in the same order, sent
from one thread over a raw psycopg2 connection and a raw keep-alive socket to OPA
(its answer parsed by httptools, uvicorn's C parser). No HTTP server in front, no
framework, no ORM, no thread hop, no window planning, shaping or response encoding.
What the app measures above this floor is the cost of everything else.

The sequence is recorded from the app itself (:func:`record_read`): a fresh app
serves one read, so that its connections prepare their statements (the ``PREPARE``
texts are kept to set up the raw connection), and then a second read, whose
statements and OPA calls are the floor's steps.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httptools
import orjson
import psycopg2
from sqlalchemy import event

from app.main import Application
from app.opa_client import Evaluation

__all__ = ["FloorRead", "Recording", "Step", "record_read"]


@dataclass(frozen=True, slots=True)
class Step:
    """One round trip of a read: a SQL statement or an OPA call.

    ``target`` is the statement's text or the OPA path; ``payload`` the statement's
    parameters or the JSON body sent to OPA.
    """

    kind: str
    target: str
    payload: Any


@dataclass(frozen=True, slots=True)
class Recording:
    """What a fresh connection must prepare, and the round trips of one warm read."""

    prepares: list[str]
    steps: list[Step]


def record_read(
    app: Application, serve_once: Callable[[], Coroutine[Any, Any, tuple[int, bytes]]]
) -> Recording:
    """Record the round trips of reads served by ``app`` (fresh: no connection used yet).

    ``serve_once`` serves one getRunContext in-process. The first read's ``PREPARE``
    statements and the second read's steps are kept.

    Raises:
        RuntimeError: a read did not answer 200, or the two reads differ in their
            round trips (the second must repeat the first without its preparations).
    """
    services = app.services
    steps: list[Step] = []

    def on_statement(
        _conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        steps.append(Step("sql", statement, parameters))

    original_evaluate = services.opa.evaluate

    def recording_evaluate(path: str, input: Any, *, correlation_id: str = "") -> Evaluation:
        # The gateway asks for OPA's provenance (the policy revision) with every call.
        target = f"/v1/data/{path}?provenance=true"
        steps.append(Step("opa", target, orjson.dumps({"input": input})))
        return original_evaluate(path, input, correlation_id=correlation_id)

    engines = (services.engine, services.read_engine)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", on_statement)
    services.opa.evaluate = recording_evaluate  # type: ignore[method-assign]
    try:
        reads = []
        for _ in range(2):
            steps.clear()
            status, _body = asyncio.run(serve_once())
            if status != 200:
                raise RuntimeError(f"getRunContext answered {status} while recording")
            reads.append(list(steps))
    finally:
        services.opa.evaluate = original_evaluate  # type: ignore[method-assign]
        for engine in engines:
            event.remove(engine, "before_cursor_execute", on_statement)
    first, second = reads
    prepares = [s.target for s in first if s.kind == "sql" and s.target.startswith("PREPARE ")]
    repeated = [(s.kind, s.target) for s in first if s.target not in prepares]
    if repeated != [(s.kind, s.target) for s in second]:
        raise RuntimeError("the second read does not repeat the first one's round trips")
    return Recording(prepares=prepares, steps=second)


class _Answer:
    """httptools callbacks collecting one response."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.complete = False

    def on_body(self, chunk: bytes) -> None:
        self.chunks.append(chunk)

    def on_message_complete(self) -> None:
        self.complete = True


class FloorRead:
    """The recorded round trips, replayed on a raw connection and a raw socket.

    Args:
        database_url: the database the app read (any SQLAlchemy-style PostgreSQL URL).
        opa_url: the OPA the app asked.
        recording: from :func:`record_read`.

    Use as a context manager; calling it replays one read.
    """

    def __init__(self, database_url: str, opa_url: str, recording: Recording) -> None:
        self._dsn = database_url.replace("postgresql+psycopg2://", "postgresql://", 1)
        address = urlsplit(opa_url)
        self._opa = (address.hostname or "127.0.0.1", address.port or 80)
        self._recording = recording
        self._conn: Any = None
        self._cursor: Any = None
        self._socket: socket.socket | None = None

    def __enter__(self) -> FloorRead:
        self._conn = psycopg2.connect(
            self._dsn, options="-c timezone=UTC -c plan_cache_mode=force_generic_plan"
        )
        # As the app's read-only units: autocommit, no BEGIN or ROLLBACK round trips.
        self._conn.autocommit = True
        self._cursor = self._conn.cursor()
        for prepare in self._recording.prepares:
            self._cursor.execute(prepare)
        self._socket = socket.create_connection(self._opa, timeout=10)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._socket is not None:
            self._socket.close()
        if self._conn is not None:
            self._conn.close()

    def __call__(self) -> None:
        """Replay one read.

        Raises:
            RuntimeError: OPA answered something other than 200 with a result.
        """
        for step in self._recording.steps:
            if step.kind == "sql":
                self._cursor.execute(step.target, step.payload)
                if self._cursor.description is not None:
                    self._cursor.fetchall()
            else:
                self._post(step.target, step.payload)

    def _post(self, path: str, body: bytes) -> None:
        assert self._socket is not None
        self._socket.sendall(
            f"POST {path} HTTP/1.1\r\nHost: opa\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        answer = _Answer()
        parser = httptools.HttpResponseParser(answer)
        while not answer.complete:
            data = self._socket.recv(65536)
            if not data:
                raise RuntimeError("OPA closed the connection")
            parser.feed_data(data)
        if parser.get_status_code() != 200 or "result" not in orjson.loads(b"".join(answer.chunks)):
            raise RuntimeError(f"OPA {path} answered {parser.get_status_code()} or undefined")
