"""Problem JSON (RFC 9457) answers with the closed code list of the contract.

Every error leaves the service through :func:`problem_response`, so each body has the
same shape: ``type``, ``title``, ``status``, ``code``, ``correlation_id`` and, where
they apply, ``reason`` (403), ``detail`` and ``errors`` (422). Texts are fixed by the
code; no request content is echoed.
"""

from __future__ import annotations

from starlette.responses import Response

from app.errors import ApiError, Forbidden, RateLimited, ValidationFailed
from app.http.correlation import current_correlation_id
from app.http.encoding import dumps

__all__ = ["PROBLEM_TYPE_BASE", "problem_body", "problem_response"]

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


def problem_response(error: ApiError) -> Response:
    """A ``application/problem+json`` response for ``error``."""
    headers = {}
    if isinstance(error, RateLimited):
        headers["Retry-After"] = str(error.retry_after)
    return Response(
        content=dumps(problem_body(error)),
        status_code=error.status,
        media_type="application/problem+json",
        headers=headers,
    )
