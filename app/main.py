"""The ASGI application: Connexion serving ``openapi/openapi.yaml``.

Connexion routes and validates every request against the spec (strict validation:
unknown query parameters are rejected, JSON bodies are closed by
``additionalProperties: false``). Errors of every origin, ours, Connexion's and
unexpected ones, leave as Problem JSON with the closed code list; an unexpected
exception is logged by type only and answered 500 without a stack trace.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
from typing import Any

import connexion
from connexion.exceptions import ProblemException
from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from connexion.resolver import Resolver
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.errors import (
    ApiError,
    InternalError,
    InvalidRequest,
    NotFound,
    ServiceUnavailable,
    Unauthenticated,
    ValidationFailed,
)
from app.http.correlation import CorrelationMiddleware
from app.http.encoding import dumps
from app.http.problem import problem_body
from app.http.routes import SPEC_PATH, load_routes, load_spec
from app.http.validation import validator_map
from app.opa_client import OpaError, OpaUnavailable
from app.services import Services, build_services, services_var

__all__ = ["Application", "create_app"]

log = logging.getLogger("app.http")
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


class SnakeCaseResolver(Resolver):  # type: ignore[misc]
    """Resolve camelCase operationIds to snake_case functions of the router controller."""

    def resolve_operation_id(self, operation: Any) -> str:
        operation_id: str = operation.operation_id
        controller = operation.router_controller
        function = _CAMEL.sub("_", operation_id).lower()
        return f"{controller}.{function}" if controller else function


def _as_api_error(exc: Exception) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, OpaUnavailable):
        # The one place where a policy-engine failure becomes an answer: fail closed.
        return ServiceUnavailable("The policy engine cannot answer.")
    if isinstance(exc, OperationalError | PoolTimeout) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        return ServiceUnavailable("The database cannot answer.")
    if isinstance(exc, ProblemException | HTTPException):
        status = getattr(exc, "status", None) or getattr(exc, "status_code", 500)
        if status == 401:
            return Unauthenticated()
        if status == 404:
            return NotFound()
        if status == 422:
            return ValidationFailed()
        if status in (400, 405, 406, 415):
            return InvalidRequest("The request does not fit this endpoint.")
    return InternalError()


def _error_handler(_request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    error = _as_api_error(exc)
    if error.status >= 500:
        # OPA errors name the entry point and the failure kind, never the input.
        detail = str(exc) if isinstance(exc, OpaError) else type(exc).__name__
        log.error("request failed", extra={"status": error.status, "error": detail})
    headers: dict[str, str] = {}
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return ConnexionResponse(
        status_code=error.status,
        body=dumps(problem_body(error)),
        content_type="application/problem+json",
        headers=headers,
    )


class Application:
    """The served ASGI app: correlation ids and services around Connexion."""

    def __init__(self, services: Services, connexion_app: connexion.AsyncApp) -> None:
        self.services = services
        self.connexion_app = connexion_app
        self._asgi: ASGIApp = CorrelationMiddleware(self._with_services)

    async def _with_services(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = services_var.set(self.services)
        try:
            await self.connexion_app(scope, receive, send)
        finally:
            services_var.reset(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._asgi(scope, receive, send)


@functools.lru_cache(maxsize=2)
def _connexion_app(validate_responses: bool) -> connexion.AsyncApp:
    """Connexion serving the spec, built once per process and flag.

    It holds no state of its own: the services of a request come from a context
    variable that :class:`Application` sets. So every app of a process (the tests
    build hundreds) shares one, and the spec is parsed and validated once.
    """
    app = connexion.AsyncApp(__name__, specification_dir=str(SPEC_PATH.parent))
    app.add_api(
        copy.deepcopy(load_spec()),
        resolver=SnakeCaseResolver(),
        strict_validation=True,
        validate_responses=validate_responses,
        validator_map=validator_map(),
        swagger_ui_options=None,
    )
    for exc_class in (
        ApiError,
        ProblemException,
        HTTPException,
        OpaUnavailable,
        DBAPIError,
        PoolTimeout,
        Exception,
    ):
        app.add_error_handler(exc_class, _error_handler)
    for status in (401, 404, 405, 406, 415):
        app.add_error_handler(status, _error_handler)
    return app


def create_app(settings: Settings, *, validate_responses: bool = False) -> Application:
    """Build the app for ``settings``.

    ``validate_responses`` makes Connexion check every response body against the spec
    (tests); production leaves it off for speed, since tests already prove conformance.
    """
    services = build_services(settings, load_routes(load_spec()))
    return Application(services, _connexion_app(validate_responses))
