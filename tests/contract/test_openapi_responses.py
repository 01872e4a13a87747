"""Contract tests of ``openapi/openapi.yaml``: responses, errors and Problem JSON.

Without PostgreSQL or OPA: every response declares the ``X-Correlation-Id`` header;
each operation declares exactly its expected error statuses, each a shared Problem
JSON component response (429 with ``Retry-After``, 401 with ``WWW-Authenticate:
Bearer``); success and request bodies reference named schemas; and ``Problem`` carries
the closed list of codes, in the order of the product's ``app.errors.PROBLEM_CODES``
(whose classes tests/unit/test_problem.py pins to the same codes).
"""

from __future__ import annotations

from typing import Any

from app.errors import PROBLEM_CODES
from tests.contract.openapi_document import iter_operations, resolve_ref

# Error statuses each operation must declare (beyond these, none may be declared).
API_ERRORS = {"401", "404", "422", "429", "503", "500"}

# Every operation with a request body: unparsable (400), too large (413), wrong type (415).
BODY_ERRORS = {"400", "413", "415"}

EXPECTED_ERROR_STATUSES: dict[str, set[str]] = {
    "healthLive": {"500"},
    "healthReady": {"503", "500"},
    # 403 run_required: an agent that may only act for someone lists with its own token.
    "listChannelMessages": API_ERRORS | {"403"},
    "postChannelMessage": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "getRunContext": {"401", "403", "404", "422", "429", "503", "500"},
    "queryTriggerHolders": API_ERRORS | BODY_ERRORS | {"403"},
    "explainDecision": API_ERRORS | BODY_ERRORS | {"403"},
    "adminCreateGrant": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminDeleteGrant": API_ERRORS | {"403"},
    "adminUpdatePrincipal": API_ERRORS | BODY_ERRORS | {"403"},
    "adminUpdateSpace": API_ERRORS | BODY_ERRORS | {"403"},
    "adminUpdateChannel": API_ERRORS | BODY_ERRORS | {"403"},
    "adminMoveThread": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminCreateRun": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminUpdateRun": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminCreateFollowup": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminUpdateFollowup": API_ERRORS | BODY_ERRORS | {"403"},
    "adminSetThreadSession": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "adminDeleteMessage": API_ERRORS | {"403"},
    "resolveSessionContext": (API_ERRORS - {"404"}) | BODY_ERRORS | {"403"},
    "provisionWorkspace": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "runnerEnroll": {"401", "403", "429", "503", "500"},
    "runnerSessionStarted": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "runnerSessionReload": API_ERRORS | {"403"},
    "runnerSessionStop": API_ERRORS | {"403"},
    "runnerSessionBindRun": API_ERRORS | BODY_ERRORS | {"403"},
    "runnerSessionUnbindRun": API_ERRORS | {"403"},
    "relayCommsCall": API_ERRORS | BODY_ERRORS | {"403"},
    "recordProviderAttempt": API_ERRORS | BODY_ERRORS | {"403", "409"},
    "appendRunStep": API_ERRORS | BODY_ERRORS,
    "putRunAnswer": API_ERRORS | BODY_ERRORS,
    "getRunPrivacy": API_ERRORS,
    "rotateRunEnvelope": API_ERRORS | BODY_ERRORS | {"409"},
    "adminSetProviderPolicy": API_ERRORS | BODY_ERRORS | {"403"},
    "adminSetTaskPolicy": API_ERRORS | BODY_ERRORS | {"403"},
}

# Shared error response component for each error status.
ERROR_COMPONENTS = {
    "400": "InvalidRequest",
    "401": "Unauthorized",
    "403": "Forbidden",
    "404": "NotFound",
    "409": "Conflict",
    "413": "PayloadTooLarge",
    "415": "UnsupportedMediaType",
    "422": "ValidationFailed",
    "429": "TooManyRequests",
    "500": "InternalError",
    "503": "ServiceUnavailable",
}

CORRELATION_HEADER_REF = "#/components/headers/XCorrelationId"


def test_every_response_declares_correlation_header(spec: dict[str, Any]) -> None:
    """Every response of every operation, 204 and errors included, has X-Correlation-Id."""
    for method, path, operation in iter_operations(spec):
        for status, response in operation["responses"].items():
            resolved = resolve_ref(spec, response)
            header = resolved.get("headers", {}).get("X-Correlation-Id")
            assert header == {"$ref": CORRELATION_HEADER_REF}, (
                f"{method.upper()} {path} {status} lacks X-Correlation-Id"
            )
    assert spec["components"]["headers"]["XCorrelationId"]["schema"] == {"type": "string"}


def test_error_responses_are_shared_problem_json(spec: dict[str, Any]) -> None:
    """Errors are exactly the expected statuses, each a shared Problem JSON response."""
    for _method, _path, operation in iter_operations(spec):
        operation_id = operation["operationId"]
        responses = operation["responses"]
        errors = {status for status in responses if int(status) >= 400}
        assert errors == EXPECTED_ERROR_STATUSES[operation_id], operation_id
        for status in errors:
            component = ERROR_COMPONENTS[status]
            assert responses[status] == {"$ref": f"#/components/responses/{component}"}, (
                f"{operation_id} {status}"
            )
    for name in ERROR_COMPONENTS.values():
        response = spec["components"]["responses"][name]
        assert list(response["content"]) == ["application/problem+json"], name
        schema = response["content"]["application/problem+json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/Problem"}, name
    retry_after = spec["components"]["responses"]["TooManyRequests"]["headers"]["Retry-After"]
    assert retry_after == {"$ref": "#/components/headers/RetryAfter"}


def test_success_bodies_and_request_bodies_use_components(spec: dict[str, Any]) -> None:
    """Success and request bodies reference named schemas; nothing is inlined."""
    for method, path, operation in iter_operations(spec):
        where = f"{method.upper()} {path}"
        body = operation.get("requestBody")
        if body is not None:
            assert body["required"] is True, where
            schema = body["content"]["application/json"]["schema"]
            assert set(schema) == {"$ref"}, where
        for status, response in operation["responses"].items():
            if int(status) >= 400 or "$ref" in response:
                continue
            for media in response.get("content", {}).values():
                assert set(media["schema"]) == {"$ref"}, f"{where} {status}"


def test_problem_schema(spec: dict[str, Any]) -> None:
    """Problem has the required fields and the closed code list twice over."""
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "code", "correlation_id"}
    assert problem["additionalProperties"] is False
    assert tuple(problem["x-problem-codes"]) == PROBLEM_CODES
    code = resolve_ref(spec, problem["properties"]["code"])
    assert tuple(code["enum"]) == PROBLEM_CODES
    assert problem["properties"]["type"]["format"] == "uri-reference"
    errors = problem["properties"]["errors"]
    field_error = resolve_ref(spec, errors["items"])
    assert set(field_error["required"]) == {"path", "message"}


def test_a_401_declares_www_authenticate_bearer(spec: dict[str, Any]) -> None:
    """RFC 6750: every 401 names the Bearer scheme."""
    unauthorized = spec["components"]["responses"]["Unauthorized"]
    header = resolve_ref(spec, unauthorized["headers"]["WWW-Authenticate"])
    assert header["required"] is True
    assert header["schema"]["enum"] == ["Bearer"]
