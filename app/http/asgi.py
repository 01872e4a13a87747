"""The one shape of this app's own ASGI middlewares: act on HTTP requests only.

The edge middlewares (body limit, correlation, edge, admission) each act on HTTP
requests; a lifespan (or any other) scope passes to the wrapped app untouched.
:class:`HttpMiddleware` holds the wrapped app and lets those scopes through, so each
middleware writes only what it does to a request, in :meth:`HttpMiddleware.handle`.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HttpMiddleware"]


class HttpMiddleware:
    """ASGI middleware that hands HTTP requests to :meth:`handle`, anything else to ``app``.

    Args:
        app: the wrapped app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request: through ``self.app``, or with an answer of its own."""
        raise NotImplementedError
