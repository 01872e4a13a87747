"""Problem JSON (RFC 9457) answers with the closed code list of the contract.

Every error leaves the service through :func:`problem_response`, so each body has the
same shape: ``type``, ``title``, ``status``, ``code``, ``correlation_id`` and, where
they apply, ``reason`` (403), ``detail`` and ``errors`` (422). Texts are fixed by the
code; no request content is echoed. :func:`problem_headers` adds the headers some
statuses need: ``WWW-Authenticate: Bearer`` on 401 (RFC 6750), ``Allow`` on 405 (RFC
9110) and ``Retry-After`` on 429.
"""

from __future__ import annotations

from starlette.responses import Response

from app.errors import (
    ApiError,
    Forbidden,
    MethodNotAllowed,
    RateLimited,
    Unauthenticated,
    ValidationFailed,
)
from app.http.correlation import current_correlation_id
from app.http.encoding import dumps

__all__ = ["PROBLEM_TYPE_BASE", "problem_body", "problem_headers", "problem_response"]

PROBLEM_TYPE_BASE = "https://errors.example.com/problems/"


def problem_body(error: ApiError) -> dict[str, object]:
    """The Problem JSON object for ``error``."""
    body: dict[str, object] = {
        "type": PROBLEM_TYPE_BASE + error.code,
        "title": error.title,
        "status": error.status,
        "code": error.code,
        "correlation_id": current_correlation_id(),
        "detail": error.detail,
    }
    if isinstance(error, Forbidden):
        body["reason"] = error.reason
    if isinstance(error, ValidationFailed) and error.errors:
        body["errors"] = error.errors
    return body


def problem_headers(error: ApiError) -> dict[str, str]:
    """The headers ``error``'s status calls for, besides the content type."""
    headers: dict[str, str] = {}
    if isinstance(error, Unauthenticated):
        headers["WWW-Authenticate"] = "Bearer"
    elif isinstance(error, MethodNotAllowed):
        headers["Allow"] = ", ".join(error.allow)
    elif isinstance(error, RateLimited):
        headers["Retry-After"] = str(error.retry_after)
    return headers


def problem_response(error: ApiError) -> Response:
    """A ``application/problem+json`` response for ``error``."""
    return Response(
        content=dumps(problem_body(error)),
        status_code=error.status,
        media_type="application/problem+json",
        headers=problem_headers(error),
    )
