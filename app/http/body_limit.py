"""A request body limit enforced while the body streams in.

Neither uvicorn nor Starlette limits a request body: whoever reads it gets it whole.
:class:`BodyLimitMiddleware` wraps ``receive`` so that whoever reads the body (in
this app only Connexion's request validation, which runs after authentication) gets
:class:`~app.errors.PayloadTooLarge` (413 ``payload_too_large``):

* at the first read, before any chunk is taken, when ``Content-Length`` already
  announces more than ``http.max_body_bytes``;
* as soon as the chunks received add up to more than the limit, for a chunked body
  or one that lies about its length.

So at most the limit plus one chunk is ever held in memory. A body nobody reads (a
401, a 404, a GET) is never pulled in at all: uvicorn stops reading from the socket
while its small buffer is full and closes the connection after the answer.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import PayloadTooLarge
from app.http.asgi import HttpMiddleware
from app.http.headers import header_value

__all__ = ["BodyLimitMiddleware"]


def _declared_length(scope: Scope) -> int | None:
    text = (header_value(scope, b"content-length") or "").strip()
    # uvicorn's parsers reject a malformed Content-Length before the app runs.
    return int(text) if text.isdigit() else None


class BodyLimitMiddleware(HttpMiddleware):
    """ASGI middleware: at most ``max_bytes`` of request body reach the app."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.max_bytes
        received = 0
        checked_length = False

        async def limited_receive() -> Message:
            nonlocal received, checked_length
            if not checked_length:
                checked_length = True
                declared = _declared_length(scope)
                if declared is not None and declared > limit:
                    raise PayloadTooLarge()
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise PayloadTooLarge()
            return message

        await self.app(scope, limited_receive, send)
