"""What every handler does first: find its route and the authenticated actor.

Authentication (``app.auth.bearer_info``) and the rate limit
(``app.http.admission``) have already run in the middleware stack, before the body
was read; :func:`begin` only collects their results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connexion.context import scope
from starlette.responses import Response

from app.auth import current_actor, current_runner
from app.domain.identity import Actor, RunnerIdentity
from app.http.encoding import dumps
from app.http.routes import Route
from app.services import Services, UseCases, services_of

__all__ = [
    "RequestContext",
    "RunnerRequestContext",
    "begin",
    "begin_runner",
    "json_response",
    "no_content",
    "request_services",
]


@dataclass(frozen=True, slots=True)
class _Operation:
    """The services and the route of one request, whoever authenticated it."""

    services: Services
    route: Route

    @property
    def use_cases(self) -> UseCases:
        """The wired use cases."""
        return self.services.use_cases

    @property
    def action(self) -> str:
        """The action this operation is decided as (``x-action``)."""
        return self.route.action


@dataclass(frozen=True, slots=True)
class RequestContext(_Operation):
    """The authenticated actor, the route and the services of one request."""

    actor: Actor


def request_services() -> Services:
    """The services of the app serving this request (attached to its scope by the app)."""
    return services_of(scope)


def begin(operation_id: str) -> RequestContext:
    """The services, the route and the authenticated actor of the operation.

    No I/O: the token was resolved by the security middleware and the rate-limit
    token taken by the admission middleware, both before the body was read.

    Raises:
        Unauthenticated: the request carries no authenticated actor.
    """
    services = request_services()
    return RequestContext(
        services=services, actor=current_actor(), route=services.routes[operation_id]
    )


def json_response(body: Any, status: int = 200) -> Response:
    """A JSON response without nulls."""
    return Response(content=dumps(body), status_code=status, media_type="application/json")


def no_content() -> Response:
    """An empty 204 response."""
    return Response(status_code=204)


@dataclass(frozen=True, slots=True)
class RunnerRequestContext(_Operation):
    """The authenticated runner, the route and the services of one runner request."""

    runner: RunnerIdentity


def begin_runner(operation_id: str) -> RunnerRequestContext:
    """:func:`begin` for the runner endpoints: only a runner token authenticates.

    No I/O, like :func:`begin`: the security middleware resolved the token and the
    admission middleware took the runner's rate-limit token.

    Raises:
        Unauthenticated: the token does not belong to a runner.
    """
    services = request_services()
    return RunnerRequestContext(
        services=services, runner=current_runner(), route=services.routes[operation_id]
    )
