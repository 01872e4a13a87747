"""Correlation ids and access logs: one id per request, in every response header,
Problem body and log line of that request.

An incoming ``X-Correlation-Id`` is kept when it is a short token of safe characters
(so a caller can follow its own id through our logs); anything else is replaced.
The id lives in a context variable, which Starlette copies into the thread that runs
a sync handler, so logs and Problem bodies of that request carry it.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HEADER", "CorrelationMiddleware", "current_correlation_id", "note_operation"]

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


def current_correlation_id() -> str:
    """The id of the request being served (empty outside a request)."""
    return _current.get()


class CorrelationMiddleware:
    """ASGI middleware that sets the correlation id and adds the response header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = ""
        for name, value in scope.get("headers", []):
            if name == b"x-correlation-id":
                incoming = value.decode("latin-1")
                break
        correlation_id = incoming if _SAFE.match(incoming) else uuid.uuid4().hex
        token = _current.set(correlation_id)
        info: dict[str, str] = {}
        info_token = _info.set(info)
        started = time.perf_counter()
        status = 500

        async def send_with_header(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k != b"x-correlation-id"
                ]
                headers.append((b"x-correlation-id", correlation_id.encode("latin-1")))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_header)
        finally:
            # The operation, not the path: a client can put any text into a path, and
            # logs carry no request values (no path, query, header or body).
            access_log.info(
                "request",
                extra={
                    "method": scope.get("method", ""),
                    "operation_id": info.get("operation_id", "unmatched"),
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )
            _current.reset(token)
            _info.reset(info_token)
