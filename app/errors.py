"""Errors the use cases raise, each mapped to one Problem JSON answer.

Error tree (every class carries its HTTP status and closed ``code``)::

    ApiError
    ├── Unauthenticated      401 unauthenticated
    ├── InvalidRequest       400 invalid_request
    ├── ValidationFailed     422 validation_failed
    ├── MethodNotAllowed     405 method_not_allowed, with the Allow header
    ├── PayloadTooLarge      413 payload_too_large (http.max_body_bytes)
    ├── UnsupportedMediaType 415 unsupported_media_type (missing or non-JSON Content-Type)
    ├── NotFound             404 not_found (same body for unknown and invisible)
    ├── Forbidden            403 forbidden, with a reason code from the policy
    ├── Conflict             409 conflict
    ├── RateLimited          429 rate_limited, with Retry-After
    ├── ServiceUnavailable   503 service_unavailable (OPA or PostgreSQL down: fail closed)
    └── InternalError        500 internal_error

Messages are fixed texts chosen by the code, never built from request content, so an
error body can carry no message content, handle, display name or token.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "PROBLEM_CODES",
    "ApiError",
    "Conflict",
    "FieldError",
    "Forbidden",
    "InternalError",
    "InvalidRequest",
    "MethodNotAllowed",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "ServiceUnavailable",
    "Unauthenticated",
    "UnsupportedMediaType",
    "ValidationFailed",
]

PROBLEM_CODES = (
    "unauthenticated",
    "not_found",
    "forbidden",
    "invalid_request",
    "validation_failed",
    "conflict",
    "rate_limited",
    "service_unavailable",
    "internal_error",
    "method_not_allowed",
    "payload_too_large",
    "unsupported_media_type",
)

FieldError = dict[str, str]


class ApiError(Exception):
    """Base of every error that ends a request with a Problem JSON body."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"
    title: ClassVar[str] = "Internal error"
    # The fixed detail of an error raised without one (``None``: the body has none).
    default_detail: ClassVar[str | None] = None

    def __init__(self, detail: str | None = None) -> None:
        if detail is None:
            detail = self.default_detail
        super().__init__(detail or self.title)
        self.detail = detail


class Unauthenticated(ApiError):
    """No bearer token, or one that matches no active token."""

    status = 401
    code = "unauthenticated"
    title = "Authentication required"


class InvalidRequest(ApiError):
    """The request cannot be parsed (malformed JSON, too deep, an integer too long)."""

    status = 400
    code = "invalid_request"
    title = "Invalid request"


class ValidationFailed(ApiError):
    """The request parses but breaks the schema or a semantic rule.

    ``errors`` lists violations (path and fixed message); ``omitted`` counts further
    violations that were found but not listed (``http.max_validation_errors``).
    """

    status = 422
    code = "validation_failed"
    title = "Validation failed"

    def __init__(
        self,
        detail: str | None = None,
        errors: list[FieldError] | None = None,
        *,
        omitted: int = 0,
    ) -> None:
        super().__init__(detail)
        self.errors = errors or []
        self.omitted = omitted


class MethodNotAllowed(ApiError):
    """The path exists but the contract declares no operation for this method.

    ``allow`` lists the declared methods; the answer carries them in ``Allow`` (RFC 9110).
    """

    status = 405
    code = "method_not_allowed"
    title = "Method not allowed"

    def __init__(self, allow: tuple[str, ...]) -> None:
        super().__init__("This path does not support the request method.")
        self.allow = allow


class PayloadTooLarge(ApiError):
    """The request body is longer than ``http.max_body_bytes``; it was not read to its end."""

    status = 413
    code = "payload_too_large"
    title = "Payload too large"
    default_detail = "The request body is larger than this service accepts."


class UnsupportedMediaType(ApiError):
    """The body's Content-Type is missing or is not UTF-8 JSON."""

    status = 415
    code = "unsupported_media_type"
    title = "Unsupported media type"
    default_detail = "The request body needs Content-Type application/json."


class NotFound(ApiError):
    """Unknown or invisible resource: one answer for both, so nothing leaks."""

    status = 404
    code = "not_found"
    title = "Not found"

    def __init__(self) -> None:
        # No detail on purpose: the body must be equal for unknown and invisible.
        super().__init__(None)


class Forbidden(ApiError):
    """Visible but not allowed; ``reason`` is the policy's machine-readable code."""

    status = 403
    code = "forbidden"
    title = "Forbidden"

    def __init__(self, reason: str) -> None:
        super().__init__(None)
        self.reason = reason


class Conflict(ApiError):
    """The request collides with the current state (e.g. a duplicate)."""

    status = 409
    code = "conflict"
    title = "Conflict"


class RateLimited(ApiError):
    """Too many requests of one rate-limit class by one principal."""

    status = 429
    code = "rate_limited"
    title = "Too many requests"

    def __init__(self, retry_after: int) -> None:
        super().__init__(None)
        self.retry_after = retry_after


class ServiceUnavailable(ApiError):
    """A source (OPA or PostgreSQL) cannot answer; the request fails closed.

    ``source`` names what failed for the fail-closed metric (``service`` unless the
    raiser knows better, e.g. ``rate_limit`` for the rate-limit storage).
    """

    status = 503
    code = "service_unavailable"
    title = "Service unavailable"

    def __init__(self, detail: str | None = None, *, source: str = "service") -> None:
        super().__init__(detail)
        self.source = source


class InternalError(ApiError):
    """A bug or an impossible state; logged with ids only."""
