"""What every handler does first: find its route, authenticate, rate-limit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connexion import request
from starlette.responses import Response

from app.auth import authenticate, authenticate_runner
from app.http.correlation import note_operation
from app.http.encoding import dumps
from app.http.routes import Route
from app.services import Services, UseCases, current_services
from repositories.principals import Actor
from repositories.runners import RunnerIdentity

__all__ = [
    "RequestContext",
    "RunnerRequestContext",
    "begin",
    "begin_runner",
    "json_response",
    "no_content",
]


@dataclass(frozen=True, slots=True)
class RequestContext:
    """The authenticated actor, the route and the services of one request."""

    services: Services
    actor: Actor
    route: Route

    @property
    def use_cases(self) -> UseCases:
        """The wired use cases."""
        return self.services.use_cases

    @property
    def action(self) -> str:
        """The action this operation is decided as (``x-action``)."""
        return self.route.action


def begin(operation_id: str) -> RequestContext:
    """Authenticate the caller and take a rate-limit token for the operation.

    Raises:
        Unauthenticated: missing or unknown token.
        RateLimited: the caller's bucket for the operation's class is empty.
    """
    services = current_services()
    route = services.routes[operation_id]
    note_operation(operation_id)
    with services.reader() as uow:
        actor = authenticate(uow, request.headers.get("authorization"))
    services.limiter.check(route.rate_class, actor.id)
    return RequestContext(services=services, actor=actor, route=route)


def json_response(body: Any, status: int = 200) -> Response:
    """A JSON response without nulls."""
    return Response(content=dumps(body), status_code=status, media_type="application/json")


def no_content() -> Response:
    """An empty 204 response."""
    return Response(status_code=204)


@dataclass(frozen=True, slots=True)
class RunnerRequestContext:
    """The authenticated runner, the route and the services of one runner request."""

    services: Services
    runner: RunnerIdentity
    route: Route

    @property
    def use_cases(self) -> UseCases:
        """The wired use cases."""
        return self.services.use_cases

    @property
    def action(self) -> str:
        """The action this operation is decided as (``x-action``)."""
        return self.route.action


def begin_runner(operation_id: str) -> RunnerRequestContext:
    """:func:`begin` for the runner endpoints: only a runner token authenticates.

    Raises:
        Unauthenticated: missing token, or not an unrevoked runner token.
        RateLimited: the runner's bucket for the operation's class is empty.
    """
    services = current_services()
    route = services.routes[operation_id]
    note_operation(operation_id)
    with services.reader() as uow:
        runner = authenticate_runner(uow, request.headers.get("authorization"))
    services.limiter.check(route.rate_class, runner.id)
    return RunnerRequestContext(services=services, runner=runner, route=route)
