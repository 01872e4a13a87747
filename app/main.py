"""The ASGI application: Connexion serving ``openapi/openapi.yaml``.

The order of work for a request, outermost first:

0. with tracing on, the OpenTelemetry ASGI middleware: the request span, joined to the
   caller's W3C ``traceparent`` (``app/observability/tracing.py``);
1. :class:`~app.http.body_limit.BodyLimitMiddleware`: whoever reads the body gets at
   most ``http.max_body_bytes`` (413 otherwise, checked as the chunks arrive);
2. :class:`~app.http.correlation.CorrelationMiddleware`: correlation id, access log,
   the request metric and the request span's name (``app/observability/requests.py``);
3. :class:`~app.http.edge.EdgeMiddleware`: media types in lower case, a trailing slash
   answered 404 like any unknown path (never a redirect);
4. Connexion: routing, then security (``app.auth.bearer_info``: one SQL statement,
   401 with ``WWW-Authenticate: Bearer``), then
   :class:`~app.http.admission.AdmissionMiddleware` (rate limit, Content-Type),
   then request validation, the first step that reads the body
   (strict: unknown query parameters are rejected, JSON bodies are closed by
   ``additionalProperties: false``), then the handler.

Errors of every origin, ours, Connexion's and unexpected ones, leave as Problem JSON
with the closed code list; an unexpected exception is logged by type only and
answered 500 without a stack trace. Connexion's Swagger UI serves the interactive
documentation at ``/ui/`` and the spec at ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import re
from typing import Any

import connexion
import orjson
from connexion.exceptions import ProblemException
from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from connexion.middleware import MiddlewarePosition
from connexion.options import SwaggerUIOptions
from connexion.resolver import Resolution, Resolver
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.errors import (
    ApiError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    Unauthenticated,
    UnsupportedMediaType,
    ValidationFailed,
)
from app.http.admission import AdmissionMiddleware
from app.http.app_state import attach, integer_setting
from app.http.body_limit import BodyLimitMiddleware
from app.http.correlation import CorrelationMiddleware
from app.http.edge import EdgeMiddleware
from app.http.problem import encode_problem, problem_body, problem_headers
from app.http.routes import SPEC_PATH, MethodIndex, load_routes, load_spec
from app.http.validation import validator_map
from app.observability.requests import ObservedRequests
from app.observability.tracing import Tracing
from app.opa_client import OpaError, OpaUnavailable
from app.services import Services, build_services, services_of

__all__ = ["SPEC_JSON_PATH", "SWAGGER_UI_PATH", "Application", "create_app"]

SWAGGER_UI_PATH = "/ui"
# Where Swagger UI (and integrators, and the fuzz test) find the contract.
SPEC_JSON_PATH = "/openapi.json"

log = logging.getLogger("app.http")
# How long a stopping process waits for its last spans to be exported.
_FLUSH_MILLIS = 5000
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _function_name(operation_id: str, controller: str | None) -> str:
    function = _CAMEL.sub("_", operation_id).lower()
    return f"{controller}.{function}" if controller else function


class SnakeCaseResolver(Resolver):  # type: ignore[misc]
    """Resolve camelCase operationIds to snake_case functions of the router controller.

    The resolution keeps the spec's operationId, so Connexion's routing names the
    operation as the contract does (routes, the access log and metrics key on it).
    """

    def resolve(self, operation: Any) -> Resolution:
        function = _function_name(operation.operation_id, operation.router_controller)
        return Resolution(self.resolve_function_from_operation_id(function), operation.operation_id)


def _as_api_error(exc: Exception, methods: MethodIndex, path: str) -> ApiError:
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
        if status == 405:
            return MethodNotAllowed(methods.allowed(path) or ())
        if status == 413:
            return PayloadTooLarge()
        if status == 415:
            return UnsupportedMediaType()
        if status == 422:
            return ValidationFailed()
        if status in (400, 406):
            return InvalidRequest("The request does not fit this endpoint.")
    return InternalError()


def _fail_closed_source(exc: Exception) -> str:
    """What a 503 failed closed on (the ``source`` of ``agent_authz_fail_closed_total``)."""
    if isinstance(exc, OpaUnavailable):
        return "opa"
    if isinstance(exc, DBAPIError | PoolTimeout):
        return "database"
    if isinstance(exc, ServiceUnavailable):
        return exc.source
    return "service"


def _count_fail_closed(scope: Scope, exc: Exception) -> None:
    """Count a 503 in ``agent_authz_fail_closed_total`` when the app counts metrics."""
    try:
        metrics = services_of(scope).metrics
    except LookupError:  # an error answer is built even outside a served app
        return
    if metrics is not None:
        metrics.fail_closed(_fail_closed_source(exc))


def _error_handler(methods: MethodIndex) -> Any:
    # A coroutine: Connexion would run a plain function in the thread pool, taking a
    # worker thread from the handlers for every 401, 404 or 429.
    async def handle(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
        error = _as_api_error(exc, methods, request.url.path)
        if error.status == 503:
            _count_fail_closed(request.scope, exc)
        if error.status >= 500:
            # OPA errors name the entry point and the failure kind, never the input.
            detail = str(exc) if isinstance(exc, OpaError) else type(exc).__name__
            log.error("request failed", extra={"status": error.status, "error": detail})
        return ConnexionResponse(
            status_code=error.status,
            body=encode_problem(
                problem_body(error, integer_setting(request.scope, "http.max_validation_errors"))
            ),
            content_type="application/problem+json",
            headers=problem_headers(error),
        )

    return handle


@functools.lru_cache(maxsize=1)
def _spec_json() -> bytes:
    return orjson.dumps(load_spec())


async def _send_spec(scope: Scope, send: Send) -> None:
    """The contract as written, for Swagger UI and integrators.

    Served here rather than by Connexion, which serves its resolved copy: that copy
    is cyclic where a schema refers to itself (``JsonValue``) and cannot be encoded.
    """
    body = _spec_json()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


class Application:
    """The served ASGI app: correlation ids and services around Connexion.

    With metrics or tracing on (``services.metrics``, ``services.tracing``) the
    correlation middleware reports every request, and with tracing on the whole app
    runs inside the ASGI instrumentation's request span.
    """

    def __init__(self, services: Services, connexion_app: connexion.AsyncApp) -> None:
        self.services = services
        self.connexion_app = connexion_app
        observer = (
            ObservedRequests(services.routes, services.metrics, traced=services.tracing is not None)
            if services.metrics is not None or services.tracing is not None
            else None
        )
        edge = EdgeMiddleware(self._serve, open_prefixes=(SWAGGER_UI_PATH + "/",))
        asgi: ASGIApp = BodyLimitMiddleware(
            CorrelationMiddleware(edge, observer),
            services.settings.integer("http.max_body_bytes"),
        )
        if services.tracing is not None:
            asgi = services.tracing.instrument_asgi(asgi)
        self._asgi = asgi

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        spec_request = scope["type"] == "http" and scope["path"] == SPEC_JSON_PATH
        if spec_request and scope["method"] in ("GET", "HEAD"):
            await _send_spec(scope, send)
            return
        # The one place the wiring meets a request: every layer below reads it here.
        await self.connexion_app(attach(scope, self.services), receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        await self._asgi(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """Start and stop of a served process (``python -m app serve`` runs lifespan on).

        At the stop, after the last request, the spans still in the batch processor are
        exported: uvicorn ends a worker by re-raising the signal that stopped it, so no
        exit hook of the process would run.
        """
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.services.limiter.aclose()
                tracing = self.services.tracing
                if tracing is not None:
                    await asyncio.to_thread(tracing.provider.force_flush, _FLUSH_MILLIS)
                await send({"type": "lifespan.shutdown.complete"})
                return


@functools.lru_cache(maxsize=2)
def _connexion_app(validate_responses: bool) -> connexion.AsyncApp:
    """Connexion serving the spec, built once per process and flag.

    It holds no state of its own: the services of a request come with its scope,
    attached by :class:`Application` (``app/http/app_state.py``). So every app of a
    process (the tests build hundreds) shares one, and the spec is parsed and
    validated once.
    """
    spec = load_spec()
    methods = MethodIndex(spec)
    app = connexion.AsyncApp(__name__, specification_dir=str(SPEC_PATH.parent))
    app.add_middleware(AdmissionMiddleware, position=MiddlewarePosition.BEFORE_VALIDATION)
    app.add_api(
        copy.deepcopy(spec),
        resolver=SnakeCaseResolver(),
        strict_validation=True,
        validate_responses=validate_responses,
        validator_map=validator_map(),
        swagger_ui_options=SwaggerUIOptions(swagger_ui=True, swagger_ui_path=SWAGGER_UI_PATH),
    )
    handle = _error_handler(methods)
    for exc_class in (
        ApiError,
        ProblemException,
        HTTPException,
        OpaUnavailable,
        DBAPIError,
        PoolTimeout,
        Exception,
    ):
        app.add_error_handler(exc_class, handle)
    for status in (401, 404, 405, 406, 413, 415):
        app.add_error_handler(status, handle)
    return app


def create_app(
    settings: Settings, *, validate_responses: bool = False, tracing: Tracing | None = None
) -> Application:
    """Build the app for ``settings``.

    ``validate_responses`` makes Connexion check every response body against the spec
    (tests); production leaves it off for speed, since tests already prove conformance.
    ``tracing`` (off by default; :func:`app.observability.tracing.tracing_from_environment`
    in production) traces every request, SQL statement and OPA call; it also switches
    on the process-wide tracing of urllib3, the OPA client's transport.
    """
    if tracing is not None:
        tracing.instrument_transport()
    services = build_services(settings, load_routes(load_spec()), tracing=tracing)
    return Application(services, _connexion_app(validate_responses))
