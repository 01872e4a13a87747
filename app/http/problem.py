"""Problem JSON (RFC 9457) answers with the closed code list of the contract.

Every error leaves the service through :func:`problem_response`, so each body has the
same shape: ``type``, ``title``, ``status``, ``code``, ``correlation_id`` and, where
they apply, ``reason`` (403), ``detail``, ``errors`` and ``errors_omitted`` (422).
Texts are fixed by the code; client-chosen keys appear only as bounded, escaped
prefixes in error paths (:mod:`app.domain.echo`). :func:`problem_headers` adds the
headers some statuses need: ``WWW-Authenticate: Bearer`` on 401 (RFC 6750), ``Allow``
on 405 (RFC 9110) and ``Retry-After`` on 429.

No error answer may fail to be built: :func:`encode_problem` falls back to the body
without ``errors`` (and then to a fixed body) if anything in it cannot be encoded.
"""

from __future__ import annotations

from typing import Any

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

__all__ = [
    "PROBLEM_TYPE_BASE",
    "encode_problem",
    "problem_body",
    "problem_headers",
    "problem_response",
]

PROBLEM_TYPE_BASE = "https://errors.example.com/problems/"
# The default of http.max_validation_errors, for answers built outside a served app.
_DEFAULT_LISTED = 20


def problem_body(error: ApiError, max_errors: int = _DEFAULT_LISTED) -> dict[str, object]:
    """The Problem JSON object for ``error``.

    A 422 lists at most ``max_errors`` violations (``http.max_validation_errors`` of the
    serving app, passed by its error handler); ``errors_omitted`` counts the ones found
    but not listed.
    """
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
    if isinstance(error, ValidationFailed):
        if error.errors:
            body["errors"] = error.errors[:max_errors]
        omitted = error.omitted + max(0, len(error.errors) - max_errors)
        if omitted:
            body["errors_omitted"] = omitted
    return body


def encode_problem(body: dict[str, Any]) -> bytes:
    """``body`` as JSON; never raises.

    Every echo in ``errors`` is escaped where it is built, so the fallback is a last
    line of defence: the same answer with only the fields fixed by the code (type,
    title, status, code, reason, correlation id), which always encode.
    """
    try:
        return dumps(body)
    except (TypeError, ValueError):
        fixed = ("type", "title", "status", "code", "reason", "correlation_id")
        return dumps({key: body[key] for key in fixed if key in body})


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
        content=encode_problem(problem_body(error)),
        status_code=error.status,
        media_type="application/problem+json",
        headers=problem_headers(error),
    )
