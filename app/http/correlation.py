"""Correlation ids and access logs: one id per request, in every response header,
Problem body and log line of that request.

An incoming ``X-Correlation-Id`` is kept when it is a short token of safe characters
(so a caller can follow its own id through our logs); anything else is replaced.
The id lives in a context variable, which Starlette copies into the thread that runs
a sync handler, so logs and Problem bodies of that request carry it. The policy gateway
sends it to OPA with every call, and notes the revision of the policy bundle that
answered (:func:`note_policy_revision`), so the access log line of a request and the
sidecar's decision-log entries of it name each other and the same revision.

An optional request observer (:class:`RequestObserver`; the metrics and the request
span, ``app/observability/requests.py``) is told when each request starts, when its
answer starts and when it ends.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid
from typing import Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.asgi import HttpMiddleware
from app.http.headers import header_value

__all__ = [
    "HEADER",
    "CorrelationMiddleware",
    "RequestObserver",
    "RequestWatch",
    "current_correlation_id",
    "note_operation",
    "note_policy_revision",
]

HEADER = "X-Correlation-Id"
_SAFE = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
access_log = logging.getLogger("app.access")
_current: contextvars.ContextVar[str] = contextvars.ContextVar("correlation_id", default="")
_info: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("request_info")


def note_operation(operation_id: str) -> None:
    """Name the operation being served, for the access log line of this request.

    The handler runs in a worker thread with a copy of the context; the dict it writes
    to is the one the middleware created, so the note reaches the log line.
    """
    info = _info.get(None)
    if info is not None:
        info["operation_id"] = operation_id


def note_policy_revision(revision: str | None) -> None:
    """Note the bundle revision of an OPA answer for the access log line of this request.

    A request whose answers came from two revisions (a bundle activated between its
    OPA calls) logs both, in order, comma-separated.
    """
    info = _info.get(None)
    if info is None or revision is None:
        return
    noted = info.get("policy_revision")
    if noted is None:
        info["policy_revision"] = revision
    elif noted.rsplit(",", 1)[-1] != revision:
        info["policy_revision"] = f"{noted},{revision}"


def current_correlation_id() -> str:
    """The id of the request being served (empty outside a request)."""
    return _current.get()


class RequestWatch(Protocol):
    """What a request observer follows of one request."""

    def responding(self, operation_id: str, status: int) -> None:
        """The answer starts (the operation is known by now)."""

    def finished(self, operation_id: str, status: int, seconds: float) -> None:
        """The request ended: last byte sent, or no answer at all (status 500)."""


class RequestObserver(Protocol):
    """Told about every request (metrics, the request span)."""

    def started(self, correlation_id: str) -> RequestWatch:
        """A request starts with ``correlation_id``; follow it with the returned watch."""


class CorrelationMiddleware(HttpMiddleware):
    """ASGI middleware that sets the correlation id and adds the response header.

    Args:
        app: the wrapped app.
        observer: told about every request; none by default.
    """

    def __init__(self, app: ASGIApp, observer: RequestObserver | None = None) -> None:
        super().__init__(app)
        self.observer = observer

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        incoming = header_value(scope, b"x-correlation-id") or ""
        correlation_id = incoming if _SAFE.match(incoming) else uuid.uuid4().hex
        token = _current.set(correlation_id)
        info: dict[str, str] = {}
        info_token = _info.set(info)
        started = time.perf_counter()
        status = 500
        watch = self.observer.started(correlation_id) if self.observer is not None else None

        async def send_with_header(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                if watch is not None:
                    watch.responding(info.get("operation_id", "unmatched"), status)
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k != b"x-correlation-id"
                ]
                headers.append((b"x-correlation-id", correlation_id.encode("latin-1")))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_header)
        finally:
            seconds = time.perf_counter() - started
            operation_id = info.get("operation_id", "unmatched")
            if watch is not None:
                watch.finished(operation_id, status, seconds)
            # The operation, not the path: a client can put any text into a path, and
            # logs carry no request values (no path, query, header or body).
            extra: dict[str, object] = {
                "method": scope.get("method", ""),
                "operation_id": operation_id,
                "status": status,
                "duration_ms": round(seconds * 1000, 2),
            }
            if "policy_revision" in info:
                extra["policy_revision"] = info["policy_revision"]
            access_log.info("request", extra=extra)
            _current.reset(token)
            _info.reset(info_token)
