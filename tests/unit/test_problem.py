"""Problem JSON bodies: closed codes, fixed texts, the correlation id, no null, no echo."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.errors import (
    PROBLEM_CODES,
    ApiError,
    Conflict,
    Forbidden,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServiceUnavailable,
    Unauthenticated,
    UnsupportedMediaType,
    ValidationFailed,
)
from app.http.correlation import CorrelationMiddleware, current_correlation_id
from app.http.problem import PROBLEM_TYPE_BASE, encode_problem, problem_body, problem_response
from app.http.routes import load_spec

ERRORS: list[ApiError] = [
    Unauthenticated(),
    InvalidRequest("The request body is not valid JSON."),
    ValidationFailed(
        "The request body does not match the schema.",
        [{"path": "body/content_md", "message": "violates 'minLength'"}],
    ),
    NotFound(),
    Forbidden("no_grant"),
    Conflict(),
    RateLimited(17),
    ServiceUnavailable("The policy engine cannot answer."),
    InternalError(),
    MethodNotAllowed(("GET", "HEAD")),
    PayloadTooLarge("The request body is larger than this service accepts."),
    UnsupportedMediaType("The request body needs Content-Type application/json."),
]


def _problem_schema() -> dict[str, Any]:
    schema: dict[str, Any] = load_spec()["components"]["schemas"]["Problem"]
    return schema


def _serve(error: ApiError, incoming_id: str | None = None) -> tuple[dict[str, Any], bytes]:
    """Answer one request with ``error`` through the correlation middleware."""
    messages: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await problem_response(error)(scope, receive, send)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        messages.append(message)

    headers = [] if incoming_id is None else [(b"x-correlation-id", incoming_id.encode())]
    scope = {"type": "http", "method": "GET", "path": "/", "headers": headers, "query_string": b""}
    asyncio.run(CorrelationMiddleware(app)(scope, receive, send))
    start = next(m for m in messages if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    response_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return {"status": start["status"], **response_headers}, body


def test_every_error_class_has_a_code_of_the_closed_list_and_the_spec_enum() -> None:
    spec_codes = load_spec()["components"]["schemas"]["ProblemCode"]["enum"]

    assert sorted({type(error).code for error in ERRORS}) == sorted(PROBLEM_CODES)
    assert sorted(spec_codes) == sorted(PROBLEM_CODES)


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_each_problem_body_fits_the_problem_schema_and_has_no_null(error: ApiError) -> None:
    schema = _problem_schema()

    body = json.loads(bytes(problem_response(error).body))

    assert set(schema["required"]) <= set(body)
    assert set(body) <= set(schema["properties"])
    assert body["type"] == PROBLEM_TYPE_BASE + error.code
    assert body["title"] == error.title
    assert body["status"] == error.status
    assert body["code"] == error.code
    assert None not in body.values()


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_the_problem_response_has_the_problem_media_type_and_status(error: ApiError) -> None:
    response = problem_response(error)

    assert response.status_code == error.status
    assert response.media_type == "application/problem+json"


def test_only_a_403_carries_a_reason() -> None:
    for error in ERRORS:
        body = problem_body(error)
        assert ("reason" in body) == isinstance(error, Forbidden)
    assert problem_body(Forbidden("archived"))["reason"] == "archived"


def test_errors_are_listed_only_on_a_422_that_has_them() -> None:
    assert "errors" not in problem_body(ValidationFailed())
    assert problem_body(ERRORS[2])["errors"] == [
        {"path": "body/content_md", "message": "violates 'minLength'"}
    ]
    assert "errors" not in problem_body(InvalidRequest())


def test_a_404_has_no_detail_so_unknown_and_invisible_bodies_are_equal() -> None:
    first, second = problem_response(NotFound()), problem_response(NotFound())

    assert first.body == second.body
    assert "detail" not in json.loads(bytes(first.body))


def test_a_429_has_an_integer_retry_after_header() -> None:
    response = problem_response(RateLimited(42))

    assert response.headers["Retry-After"] == "42"


def test_only_a_429_has_retry_after() -> None:
    for error in ERRORS:
        headers = {k.lower() for k in problem_response(error).headers}
        assert ("retry-after" in headers) == isinstance(error, RateLimited)


def test_the_correlation_id_of_the_request_is_in_header_and_body() -> None:
    headers, body = _serve(Forbidden("no_grant"), incoming_id="caller-trace-001")

    assert headers["x-correlation-id"] == "caller-trace-001"
    assert json.loads(body)["correlation_id"] == "caller-trace-001"
    assert headers["content-type"] == "application/problem+json"
    assert headers["status"] == 403


@pytest.mark.parametrize("incoming", [None, "bad id", "x" * 100, "short", "ü" * 10])
def test_an_absent_or_unsafe_correlation_id_is_replaced_by_a_fresh_one(
    incoming: str | None,
) -> None:
    headers, body = _serve(NotFound(), incoming_id=incoming)

    fresh = headers["x-correlation-id"]
    assert fresh != incoming
    assert len(fresh) == 32
    assert int(fresh, 16) >= 0
    assert json.loads(body)["correlation_id"] == fresh


def test_the_correlation_id_is_reset_after_the_request() -> None:
    _serve(NotFound(), incoming_id="caller-trace-002")

    assert current_correlation_id() == ""


def test_errors_without_a_detail_argument_answer_without_detail() -> None:
    # Titles are fixed per class; NotFound, Forbidden and RateLimited take no free text.
    for error in (NotFound(), Forbidden("no_grant"), RateLimited(3), Unauthenticated()):
        assert error.detail is None
        assert "detail" not in json.loads(bytes(problem_response(error).body))


def test_a_422_lists_at_most_the_limit_and_counts_the_rest() -> None:
    errors = [{"path": f"body/x/{index}", "message": "violates 'format'"} for index in range(50)]

    body = problem_body(ValidationFailed("Bad.", errors, omitted=7))

    assert len(body["errors"]) == 20  # type: ignore[arg-type]
    assert body["errors_omitted"] == 30 + 7
    assert "errors_omitted" not in problem_body(ValidationFailed("Bad.", errors[:3]))


def test_an_error_body_that_cannot_be_encoded_still_answers() -> None:
    error = ValidationFailed("Bad.", [{"path": "body/\udc80", "message": "unknown field"}])

    encoded = encode_problem(problem_body(error))

    assert json.loads(encoded)["code"] == "validation_failed"
    assert "errors" not in json.loads(encoded)
