"""Where a request finds the app serving it: the ASGI scope's ``state``.

The app (:class:`app.main.Application`) attaches its wiring to every request's scope
once, as Starlette's request state; the middleware, the error handler and the
handlers read it from the scope they are given. No module global and no context
variable: several apps can serve in one process (the tests build hundreds), and the
HTTP layer sees only :class:`ServedApp`, not the composition root.
"""

from __future__ import annotations

from typing import Protocol

from starlette.types import Scope

from app.config import SCHEMA, Settings
from app.http.ratelimit import RateLimiter
from app.http.routes import Route

__all__ = ["ServedApp", "attach", "integer_setting", "served_app"]

_STATE = "state"
_KEY = "app.services"
_DEFAULTS = {key.name: key.default for key in SCHEMA}


class ServedApp(Protocol):
    """What the HTTP layer reads of the app serving a request (``app.services.Services``)."""

    @property
    def settings(self) -> Settings:
        """The app's configuration."""

    @property
    def limiter(self) -> RateLimiter:
        """The rate limiter (admission, authentication)."""

    @property
    def routes(self) -> dict[str, Route]:
        """The operations of the contract by operationId."""


def attach(scope: Scope, app: ServedApp) -> Scope:
    """A copy of ``scope`` whose state carries ``app`` (the scope itself is not changed)."""
    return {**scope, _STATE: {**scope.get(_STATE, {}), _KEY: app}}


def served_app(scope: Scope) -> ServedApp:
    """The app attached to ``scope``.

    Raises:
        LookupError: no app is attached (a request that did not come through the app).
    """
    app: ServedApp | None = _attached(scope)
    if app is None:
        raise LookupError("no app is attached to this request")
    return app


def integer_setting(scope: Scope | None, name: str) -> int:
    """The integer setting ``name`` of the app serving ``scope``; its default outside one
    (unit tests build validators and problems without an app)."""
    app = _attached(scope) if scope is not None else None
    value: int = app.settings.integer(name) if app is not None else _DEFAULTS[name]
    return value


def _attached(scope: Scope) -> ServedApp | None:
    app: ServedApp | None = scope.get(_STATE, {}).get(_KEY)
    return app
