"""What the app settles about a request before Connexion sees it.

* **Media types are case-insensitive** (RFC 9110, section 8.3.1): ``APPLICATION/JSON``
  and ``Application/json`` mean ``application/json``. Connexion matches the media type
  case-sensitively, so a mixed-case JSON body would reach a handler as bytes; the
  type, subtype and parameter names of ``Content-Type`` are lower-cased here
  (parameter values are kept).
* **A trailing slash is an unknown path.** Starlette's router answers
  ``/api/v1/channels/{id}/messages/`` with a 307 whose ``Location`` it builds from the
  ``Host`` header; here such a path is 404 ``not_found`` Problem JSON like any unknown
  path, and no answer ever carries a URL built from a request header. Swagger UI's
  own paths (``/ui/``) are the exception: they are served as Connexion serves them.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import NotFound
from app.http.asgi import HttpMiddleware
from app.http.problem import problem_response

__all__ = ["EdgeMiddleware", "normal_media_type"]


def normal_media_type(value: str) -> str:
    """``value`` with its type, subtype and parameter names in lower case."""
    media_type, *parameters = value.split(";")
    parts = [media_type.strip().lower()]
    for parameter in parameters:
        name, sep, rest = parameter.strip().partition("=")
        parts.append(f"{name.strip().lower()}{sep}{rest.strip()}")
    return "; ".join(parts)


class EdgeMiddleware(HttpMiddleware):
    """ASGI middleware: normal media types, 404 for a trailing slash (see module doc).

    Args:
        app: the wrapped app (Connexion).
        open_prefixes: path prefixes served with their trailing slash (Swagger UI).
    """

    def __init__(self, app: ASGIApp, open_prefixes: tuple[str, ...] = ()) -> None:
        super().__init__(app)
        self.open_prefixes = open_prefixes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/") and not path.startswith(self.open_prefixes):
            await problem_response(NotFound())(scope, receive, send)
            return
        headers = scope.get("headers", [])
        for index, (name, value) in enumerate(headers):
            if name == b"content-type":
                normal = normal_media_type(value.decode("latin-1")).encode("latin-1")
                if normal != value:
                    headers = list(headers)
                    headers[index] = (name, normal)
                    scope = {**scope, "headers": headers}
                break
        await self.app(scope, receive, send)
