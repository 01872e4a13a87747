"""Admission: what happens between authentication and request validation.

Connexion's middleware stack runs routing, then security (``app.auth.bearer_info``),
then request validation, which is the first step that reads the body. This middleware
sits between security and validation, so for every routed operation it decides,
still without reading a byte of the body:

1. names the operation for the access log;
2. counts the request in the rate-limit window of (the operation's
   ``x-rate-limit-class``, the authenticated principal): 429 ``rate_limited`` when it
   is full (``app.http.ratelimit``; awaited, so a shared storage never blocks the loop);
3. for operations with a request body, requires ``Content-Type: application/json``
   (an optional ``charset=utf-8``): a missing or other type is 415
   ``unsupported_media_type``.

A request that routing matched to no operation passes through untouched: Connexion's
routing answers a known path with another method (405 with ``Allow``, shaped by the
app's error handler) and an unknown path (404).
"""

from __future__ import annotations

from typing import Any

from starlette.types import Receive, Scope, Send

from app.errors import Unauthenticated, UnsupportedMediaType
from app.http.app_state import served_app
from app.http.asgi import HttpMiddleware
from app.http.correlation import note_operation
from app.http.headers import header_value
from app.http.token_info import actor_of, runner_of

__all__ = ["AdmissionMiddleware", "check_json_content_type"]

_ROUTING = "connexion_routing"
_CONTEXT = "connexion_context"


def check_json_content_type(content_type: str | None) -> None:
    """Accept ``application/json`` with no charset or ``charset=utf-8`` only.

    RFC 8259 makes UTF-8 the only encoding of JSON exchanged between systems; any
    other declared charset would be decoded wrongly or not at all.

    Raises:
        UnsupportedMediaType: the header is missing, names another type, or another
            charset.
    """
    if not content_type:
        raise UnsupportedMediaType()
    media_type, *parameters = (part.strip() for part in content_type.split(";"))
    if media_type.lower() != "application/json":
        raise UnsupportedMediaType()
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in (
            "utf-8",
            "utf8",
        ):
            raise UnsupportedMediaType("The request body must be UTF-8 JSON.")


class AdmissionMiddleware(HttpMiddleware):
    """Connexion middleware at ``MiddlewarePosition.BEFORE_VALIDATION`` (see module doc)."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        extensions: dict[str, Any] = scope.get("extensions", {})
        # The spec's operationId (app.main.SnakeCaseResolver keeps it for routing).
        operation_id = extensions.get(_ROUTING, {}).get("operation_id")
        if operation_id is None:
            await self.app(scope, receive, send)
            return
        note_operation(operation_id)
        app = served_app(scope)
        route = app.routes.get(operation_id)
        if route is not None:
            token_info = extensions.get(_CONTEXT, {}).get("token_info")
            holder = runner_of(token_info) if route.for_runners else actor_of(token_info)
            if token_info is not None and holder is None:
                # A runner's token on a principal endpoint, or the other way round.
                raise Unauthenticated()
            if holder is not None:
                await app.limiter.check(route.rate_class, holder.id)
            if route.has_body:
                check_json_content_type(header_value(scope, b"content-type"))
        await self.app(scope, receive, send)
