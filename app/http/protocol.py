"""The HTTP server's own limits, and Problem JSON for what it rejects itself.

uvicorn parses the request line and headers before the app sees a request. Its
httptools parser has no size limit of its own, and what it rejects (a malformed
request line, invalid bytes in a header) it answers with a plain-text 400 without a
correlation id. :class:`LimitedHttpToolsProtocol` fixes both:

* the request line plus headers may hold at most ``http.max_header_bytes`` bytes
  (passed as uvicorn's ``h11_max_incomplete_event_size``, which means the same for
  its h11 parser); a longer head is rejected while it arrives;
* the answer to every request the server rejects is a 400 Problem JSON
  (``invalid_request``) with a fresh ``X-Correlation-Id``; the connection is closed.

:func:`server_options` gives the uvicorn keyword arguments for both; ``app.server``
and the test fixtures use it, so tests run the server as production does.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.config import Settings
from app.errors import InvalidRequest
from app.http.encoding import dumps
from app.http.problem import problem_body

__all__ = ["LimitedHttpToolsProtocol", "server_options"]

access_log = logging.getLogger("app.access")


class _HeadTooLarge(Exception):
    """The request line and headers exceed the configured limit."""


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a head size limit and Problem JSON 400s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limit = self.config.h11_max_incomplete_event_size
        self._head_limit: int = limit if limit is not None else 65536
        self._head_bytes = 0

    def on_message_begin(self) -> None:
        self._head_bytes = 0
        super().on_message_begin()

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > self._head_limit:
            # Raised inside a parser callback: httptools turns it into HttpParserError,
            # which uvicorn answers through send_400_response.
            raise _HeadTooLarge

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:
        correlation_id = uuid.uuid4().hex
        error = InvalidRequest("The HTTP request cannot be parsed or its head is too large.")
        body = dumps({**problem_body(error), "correlation_id": correlation_id})
        head = [
            b"HTTP/1.1 400 Bad Request\r\n",
            b"content-type: application/problem+json\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"x-correlation-id: " + correlation_id.encode("ascii") + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()
        # Like every request: one access line, without the path or any header.
        access_log.info(
            "request",
            extra={"method": "", "operation_id": "unparsed", "status": 400, "duration_ms": 0},
        )


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn keyword arguments for the HTTP server's limits and error answers."""
    return {
        "http": LimitedHttpToolsProtocol,
        "h11_max_incomplete_event_size": settings.integer("http.max_header_bytes"),
        # uvicorn would otherwise take the client address from X-Forwarded-For of any
        # loopback peer; app.http.client_address decides whom to believe
        # (rate_limit.trusted_proxies).
        "proxy_headers": False,
    }
