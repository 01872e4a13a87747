"""Contract tests for ``openapi/openapi.yaml``, the single source of the HTTP contract.

The spec is served by Connexion 3 with strict validation and used by openapi-core to
validate every response body in the integration tests, so its shape is a contract of
its own. These tests check, without PostgreSQL or OPA:

* the document is a valid OpenAPI 3.0.3 description (openapi-spec-validator);
* the operation table is exactly the expected one, and every operation carries the
  route metadata the service relies on: ``operationId``, ``x-openapi-router-controller``,
  ``x-action`` (the action decided in Rego) and ``x-rate-limit-class``;
* every response declares the ``X-Correlation-Id`` header, every error is Problem JSON
  through a shared component response, and 429 declares ``Retry-After``;
* every object schema under ``components/schemas`` is closed
  (``additionalProperties: false``) unless it is one of the declared open bags, and no
  schema anywhere is ``nullable``;
* the run context examples validate against ``RunContext`` with openapi-core, and
  openapi-core rejects an e-mail field, a JSON null and a missing correlation header;
* Connexion 3 loads the spec with strict validation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_spec_validator import validate

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

RATE_LIMIT_CLASSES = frozenset(
    {"agent_runtime", "chat", "admin", "authz", "health", "session_context", "runner"}
)

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

# Object schemas that are deliberately open (additionalProperties: true, or a schema
# for the values of unknown keys), by location below components/schemas. Each must
# also carry ``x-open-bag: true``.
OPEN_BAGS = frozenset(
    {
        "ExplainResponse/properties/input",
        # The per-turn session context bag and its providers (seed 003): open so that
        # newer clients still parse.
        "AgentSessionContext",
        "SessionProviders",
        "SessionProviders/additionalProperties",
        "SurfaceProvider",
        "SurfaceEntry",
        "CurrentPageContext",
        "KnowledgeBaseProvider",
        "PermissionsProvider",
        "ClientToolsProvider",
        "ClientToolEntry",
        # Params of tools this version does not type, route parameters of a
        # navigation (typed values), proposed field values.
        "ToolParams",
        "NavigateParams/properties/params",
        "ProposeMatterWriteParams/properties/changes",
        # Any JSON value inside those bags (integers bounded to 64 bits).
        "JsonValue/anyOf/4",
    }
)

# operationId -> (method, path, controller module, x-action, rate-limit class)
EXPECTED_OPERATIONS: dict[str, tuple[str, str, str, str, str]] = {
    "healthLive": ("get", "/healthz", "app.handlers.health", "health.live", "health"),
    "healthReady": ("get", "/readyz", "app.handlers.health", "health.ready", "health"),
    "listChannelMessages": (
        "get",
        "/api/v1/channels/{channel_id}/messages",
        "app.handlers.messages",
        "message.list",
        "chat",
    ),
    "postChannelMessage": (
        "post",
        "/api/v1/channels/{channel_id}/messages",
        "app.handlers.messages",
        "message.post",
        "chat",
    ),
    "getRunContext": (
        "get",
        "/api/v1/runs/{run_id}/context",
        "app.handlers.runs",
        "run.context.read",
        "agent_runtime",
    ),
    "queryTriggerHolders": (
        "post",
        "/api/v1/authz/trigger-holders",
        "app.handlers.authz",
        "authz.trigger_holders.query",
        "authz",
    ),
    "explainDecision": (
        "post",
        "/api/v1/authz/explain",
        "app.handlers.authz",
        "authz.explain",
        "authz",
    ),
    "adminCreateGrant": (
        "post",
        "/api/v1/admin/grants",
        "app.handlers.admin",
        "admin.grants.create",
        "admin",
    ),
    "adminDeleteGrant": (
        "delete",
        "/api/v1/admin/grants/{grant_id}",
        "app.handlers.admin",
        "admin.grants.delete",
        "admin",
    ),
    "adminUpdatePrincipal": (
        "patch",
        "/api/v1/admin/principals/{principal_id}",
        "app.handlers.admin",
        "admin.principals.update",
        "admin",
    ),
    "adminUpdateSpace": (
        "patch",
        "/api/v1/admin/spaces/{space_id}",
        "app.handlers.admin",
        "admin.spaces.update",
        "admin",
    ),
    "adminUpdateChannel": (
        "patch",
        "/api/v1/admin/channels/{channel_id}",
        "app.handlers.admin",
        "admin.channels.update",
        "admin",
    ),
    "adminMoveThread": (
        "post",
        "/api/v1/admin/threads/{thread_id}/move",
        "app.handlers.admin",
        "admin.threads.move",
        "admin",
    ),
    "adminCreateRun": (
        "post",
        "/api/v1/admin/runs",
        "app.handlers.admin",
        "admin.runs.create",
        "admin",
    ),
    "adminUpdateRun": (
        "patch",
        "/api/v1/admin/runs/{run_id}",
        "app.handlers.admin",
        "admin.runs.update",
        "admin",
    ),
    "adminCreateFollowup": (
        "post",
        "/api/v1/admin/followups",
        "app.handlers.admin",
        "admin.followups.create",
        "admin",
    ),
    "adminUpdateFollowup": (
        "patch",
        "/api/v1/admin/followups/{followup_id}",
        "app.handlers.admin",
        "admin.followups.update",
        "admin",
    ),
    "adminSetThreadSession": (
        "post",
        "/api/v1/admin/threads/{thread_id}/session",
        "app.handlers.admin",
        "admin.sessions.set",
        "admin",
    ),
    "adminDeleteMessage": (
        "delete",
        "/api/v1/admin/messages/{message_id}",
        "app.handlers.admin",
        "admin.messages.delete",
        "admin",
    ),
    "resolveSessionContext": (
        "post",
        "/api/v1/agents/session-context/resolve",
        "app.handlers.session",
        "session_context.resolve",
        "session_context",
    ),
    "provisionWorkspace": (
        "post",
        "/api/v1/agents/{agent_id}/workspaces",
        "app.handlers.workspaces",
        "agent.workspace.provision",
        "admin",
    ),
    "runnerEnroll": (
        "post",
        "/api/v1/runner/enroll",
        "app.handlers.runner",
        "runner.enroll",
        "runner",
    ),
    "runnerSessionStarted": (
        "post",
        "/api/v1/runner/sessions",
        "app.handlers.runner",
        "runner.session.bind",
        "runner",
    ),
    "runnerSessionReload": (
        "post",
        "/api/v1/runner/sessions/{session_id}/reload",
        "app.handlers.runner",
        "runner.session.reload",
        "runner",
    ),
    "runnerSessionStop": (
        "delete",
        "/api/v1/runner/sessions/{session_id}",
        "app.handlers.runner",
        "runner.session.stop",
        "runner",
    ),
    "runnerSessionBindRun": (
        "put",
        "/api/v1/runner/sessions/{session_id}/run",
        "app.handlers.runner",
        "runner.session.run.bind",
        "runner",
    ),
    "runnerSessionUnbindRun": (
        "delete",
        "/api/v1/runner/sessions/{session_id}/run",
        "app.handlers.runner",
        "runner.session.run.unbind",
        "runner",
    ),
    "relayCommsCall": (
        "post",
        "/api/v1/runner/comms:relay",
        "app.handlers.runner",
        "runner.comms.relay",
        "runner",
    ),
    "recordProviderAttempt": (
        "post",
        "/api/v1/runs/{run_id}/provider-attempts",
        "app.handlers.run_privacy",
        "provider.attempt",
        "agent_runtime",
    ),
    "appendRunStep": (
        "post",
        "/api/v1/runs/{run_id}/steps",
        "app.handlers.run_privacy",
        "run.content.write",
        "agent_runtime",
    ),
    "putRunAnswer": (
        "put",
        "/api/v1/runs/{run_id}/answer",
        "app.handlers.run_privacy",
        "run.content.write",
        "agent_runtime",
    ),
    "getRunPrivacy": (
        "get",
        "/api/v1/runs/{run_id}/privacy",
        "app.handlers.run_privacy",
        "run.privacy.read",
        "agent_runtime",
    ),
    "rotateRunEnvelope": (
        "post",
        "/api/v1/runs/{run_id}/envelope:rotate",
        "app.handlers.run_privacy",
        "run.content.write",
        "agent_runtime",
    ),
    "adminSetProviderPolicy": (
        "put",
        "/api/v1/admin/provider-policies/{provider_id}",
        "app.handlers.run_privacy",
        "admin.provider_policies.set",
        "admin",
    ),
    "adminSetTaskPolicy": (
        "put",
        "/api/v1/admin/task-policies/{task_key}",
        "app.handlers.run_privacy",
        "admin.task_policies.set",
        "admin",
    ),
}

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
RUN_ID = "7e3c1a52-0d4b-4f6e-9a21-5c8b3f0e1d01"


Operation = tuple[str, str, dict[str, Any]]


def _load_spec() -> dict[str, Any]:
    """Read the spec from disk.

    Returns:
        The parsed document.
    """
    with SPEC_PATH.open(encoding="utf-8") as handle:
        loaded = yaml.safe_load(handle)
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    """The parsed ``openapi/openapi.yaml``, shared by the tests of this module."""
    return _load_spec()


@pytest.fixture(scope="module")
def openapi(spec: dict[str, Any]) -> OpenAPI:
    """An openapi-core validator over the spec, as the integration tests use it.

    openapi-core deserializes only ``application/json`` (and a few vendor types) on its
    own; without the extra deserializer a Problem body is validated as raw bytes and
    every error response fails.
    """
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    return OpenAPI.from_dict(spec, config=config)


def _operations(spec: dict[str, Any]) -> Iterator[Operation]:
    """Yield every operation of the spec.

    Args:
        spec: The parsed document.

    Yields:
        ``(method, path, operation object)`` for each operation.
    """
    for path, item in spec["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield method, path, item[method]


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` chain.

    Args:
        spec: The parsed document.
        node: An object that may be a ``{"$ref": "#/..."}`` reference.

    Returns:
        The referenced object, or ``node`` itself when it is no reference.
    """
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are used: {ref}"
        target: Any = spec
        for part in ref[2:].split("/"):
            target = target[part]
        node = target
    return node


def _walk_schema(schema: Any, location: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield a schema and every inline subschema with its location.

    ``$ref`` targets are not followed: each referenced component is visited on its
    own when the caller walks ``components/schemas``.

    Args:
        schema: A schema object.
        location: Its location, used in failure messages.

    Yields:
        ``(location, schema)`` pairs.
    """
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    yield location, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _walk_schema(sub, f"{location}/properties/{name}")
    for key in ("items", "not", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from _walk_schema(schema[key], f"{location}/{key}")
    for key in ("allOf", "anyOf", "oneOf"):
        for index, sub in enumerate(schema.get(key, [])):
            yield from _walk_schema(sub, f"{location}/{key}/{index}")


def _walk_keys(node: Any, location: str = "#") -> Iterator[tuple[str, str, Any]]:
    """Yield every mapping key of the document with its location and value.

    Args:
        node: Any part of the parsed document.
        location: Its location.

    Yields:
        ``(location, key, value)`` for every key of every mapping.
    """
    if isinstance(node, dict):
        for key, value in node.items():
            yield location, str(key), value
            yield from _walk_keys(value, f"{location}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_keys(value, f"{location}/{index}")


def _is_object_schema(schema: dict[str, Any]) -> bool:
    """Whether a schema describes a JSON object."""
    return schema.get("type") == "object" or "properties" in schema


def _contains_null(value: Any) -> bool:
    """Whether a JSON value holds a null anywhere."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_contains_null(item) for item in value.values())
    if isinstance(value, list):
        return any(_contains_null(item) for item in value)
    return False


def _validate_response(
    openapi: OpenAPI,
    method: str,
    path: str,
    status: int,
    body: Any,
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
) -> None:
    """Validate one response with openapi-core, raising on any violation.

    Args:
        openapi: The openapi-core validator.
        method: HTTP method of the request.
        path: Concrete request path.
        status: Response status.
        body: Response body as a JSON value.
        headers: Response headers; defaults to a correlation header only.
        content_type: Response content type.
    """
    request = MockRequest("http://localhost", method, path)
    response = MockResponse(
        json.dumps(body).encode("utf-8"),
        status_code=status,
        headers={"X-Correlation-Id": "corr-1"} if headers is None else headers,
        content_type=content_type,
    )
    openapi.validate_response(request, response)


def test_spec_is_valid_openapi_3_0_3(spec: dict[str, Any]) -> None:
    """The document is a valid OpenAPI 3.0.3 description with a titled, versioned info."""
    assert spec["openapi"] == "3.0.3"
    validate(spec)
    info = spec["info"]
    assert info["title"]
    assert info["version"] == "1.0.0"
    assert info["description"].strip()
    assert spec["servers"] == [{"url": "/"}]


def test_operation_table_is_exact(spec: dict[str, Any]) -> None:
    """Every expected operation exists with its method, path and metadata, and no other."""
    found: dict[str, tuple[str, str, str, str, str]] = {}
    for method, path, operation in _operations(spec):
        operation_id = operation.get("operationId")
        assert operation_id, f"{method.upper()} {path} has no operationId"
        assert operation_id not in found, f"duplicate operationId {operation_id}"
        found[operation_id] = (
            method,
            path,
            operation.get("x-openapi-router-controller", ""),
            operation.get("x-action", ""),
            operation.get("x-rate-limit-class", ""),
        )
    assert found == EXPECTED_OPERATIONS


def test_every_operation_has_route_metadata(spec: dict[str, Any]) -> None:
    """Each operation names its controller, Rego action, rate-limit class and docs."""
    for method, path, operation in _operations(spec):
        where = f"{method.upper()} {path}"
        assert re.fullmatch(r"[a-z][A-Za-z0-9]*", operation["operationId"]), where
        assert re.fullmatch(
            r"app\.handlers\.[a-z_]+", operation.get("x-openapi-router-controller", "")
        ), where
        assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", operation.get("x-action", "")), where
        assert operation.get("x-rate-limit-class") in RATE_LIMIT_CLASSES, where
        assert operation.get("summary", "").strip(), where
        assert operation.get("description", "").strip(), where
        assert operation.get("tags"), where


def test_every_response_declares_correlation_header(spec: dict[str, Any]) -> None:
    """Every response of every operation, 204 and errors included, has X-Correlation-Id."""
    for method, path, operation in _operations(spec):
        for status, response in operation["responses"].items():
            resolved = _resolve(spec, response)
            header = resolved.get("headers", {}).get("X-Correlation-Id")
            assert header == {"$ref": CORRELATION_HEADER_REF}, (
                f"{method.upper()} {path} {status} lacks X-Correlation-Id"
            )
    assert spec["components"]["headers"]["XCorrelationId"]["schema"] == {"type": "string"}


def test_error_responses_are_shared_problem_json(spec: dict[str, Any]) -> None:
    """Errors are exactly the expected statuses, each a shared Problem JSON response."""
    for _method, _path, operation in _operations(spec):
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
    for method, path, operation in _operations(spec):
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


def test_security_is_bearer_except_health(spec: dict[str, Any]) -> None:
    """A global bearer scheme applies; only the health probes opt out."""
    assert spec["security"] == [{"bearerAuth": []}]
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert scheme["type"] == "http"
    assert scheme["scheme"] == "bearer"
    assert scheme["x-bearerInfoFunc"] == "app.auth.bearer_info"
    for _method, _path, operation in _operations(spec):
        if operation["x-rate-limit-class"] == "health":
            assert operation.get("security") == [], operation["operationId"]
        else:
            assert "security" not in operation, operation["operationId"]


def test_object_schemas_are_closed(spec: dict[str, Any]) -> None:
    """Every object schema under components/schemas is closed except the open bags."""
    seen_open: set[str] = set()
    for name, schema in spec["components"]["schemas"].items():
        for location, sub in _walk_schema(schema, name):
            if not _is_object_schema(sub):
                continue
            if location in OPEN_BAGS:
                seen_open.add(location)
                open_values = sub.get("additionalProperties")
                assert open_values is True or isinstance(open_values, dict), location
                assert sub.get("x-open-bag") is True, location
            else:
                assert sub.get("additionalProperties") is False, location
                assert "x-open-bag" not in sub, location
    assert seen_open == OPEN_BAGS


def test_no_schema_is_nullable(spec: dict[str, Any]) -> None:
    """No schema allows JSON null, except a value inside a client's open request bag.

    The service never sends null; a newer client may put one inside a provider it owns,
    and that must still parse (the bag is orientation, kept raw or ignored).
    """
    offenders = [location for location, key, _ in _walk_keys(spec) if key == "nullable"]
    assert offenders == ["#/components/schemas/JsonValue/anyOf/0"]
    responses = yaml.safe_dump(
        [op["responses"] for _m, _p, op in _operations(spec)] + [spec["components"]["responses"]]
    )
    assert "JsonValue" not in responses


def test_problem_schema(spec: dict[str, Any]) -> None:
    """Problem has the required fields and the closed code list twice over."""
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "code", "correlation_id"}
    assert problem["additionalProperties"] is False
    assert tuple(problem["x-problem-codes"]) == PROBLEM_CODES
    code = _resolve(spec, problem["properties"]["code"])
    assert tuple(code["enum"]) == PROBLEM_CODES
    assert problem["properties"]["type"]["format"] == "uri-reference"
    errors = problem["properties"]["errors"]
    field_error = _resolve(spec, errors["items"])
    assert set(field_error["required"]) == {"path", "message"}


def test_run_context_schema_shape(spec: dict[str, Any]) -> None:
    """RunContext and RunContextMessage follow run_context.v1 (seed note 10, rulings 10-11)."""
    schemas = spec["components"]["schemas"]
    run_context = schemas["RunContext"]
    assert set(run_context["required"]) == {
        "run_id",
        "context_floor_seq",
        "trigger_message",
        "thread_context",
    }
    assert set(run_context["properties"]) == {
        "run_id",
        "context_floor_seq",
        "trigger_message",
        "thread_context",
        "channel_context",
        "truncated_before_seq",
    }
    element = schemas["RunContextMessage"]
    optional = {"reply_to_message_id", "truncated", "already_delivered"}
    assert set(element["properties"]) - set(element["required"]) == optional
    assert "channel_id" in element["required"]
    assert element["properties"]["channel_id"]["description"] == (
        "Channel of the message (SEC-AI-1)."
    )
    for flag in ("truncated", "already_delivered"):
        assert element["properties"][flag]["enum"] == [True]
    assert set(schemas["PrincipalRef"]["properties"]) == {"id", "kind", "handle", "display_name"}


def test_run_context_examples_validate(spec: dict[str, Any], openapi: OpenAPI) -> None:
    """The getRunContext examples are valid responses, null-free and e-mail-free."""
    operation = spec["paths"]["/api/v1/runs/{run_id}/context"]["get"]
    media = operation["responses"]["200"]["content"]["application/json"]
    examples = [_resolve(spec, example)["value"] for example in media["examples"].values()]
    assert len(examples) >= 2
    for example in examples:
        assert not _contains_null(example)
        assert "@example" not in json.dumps(example)
        assert "email" not in json.dumps(example)
        _validate_response(
            openapi, "get", f"/api/v1/runs/{example['run_id']}/context", 200, example
        )


def test_openapi_core_enforces_closed_and_null_free_bodies(
    spec: dict[str, Any], openapi: OpenAPI
) -> None:
    """Response validation rejects an e-mail field, a JSON null and a missing header."""
    example = _resolve(spec, spec["components"]["examples"]["RunContextFirstRun"])["value"]
    path = f"/api/v1/runs/{RUN_ID}/context"

    with_email = json.loads(json.dumps(example))
    with_email["trigger_message"]["author"]["email"] = "alex@example.com"
    with pytest.raises(Exception, match=r"(?i)valid"):
        _validate_response(openapi, "get", path, 200, with_email)

    with_null = json.loads(json.dumps(example))
    with_null["trigger_message"]["reply_to_message_id"] = None
    with pytest.raises(Exception, match=r"(?i)valid"):
        _validate_response(openapi, "get", path, 200, with_null)

    with pytest.raises(Exception, match=r"(?i)header"):
        _validate_response(openapi, "get", path, 200, example, headers={})


def test_problem_bodies_validate(openapi: OpenAPI) -> None:
    """A 404 and a 429 Problem validate; a 429 without Retry-After does not."""
    not_found = {
        "type": "about:blank",
        "title": "Not found",
        "status": 404,
        "code": "not_found",
        "correlation_id": "corr-1",
    }
    path = f"/api/v1/runs/{RUN_ID}/context"
    problem_json = "application/problem+json"
    _validate_response(openapi, "get", path, 404, not_found, content_type=problem_json)
    limited = {**not_found, "title": "Too many requests", "status": 429, "code": "rate_limited"}
    _validate_response(
        openapi,
        "get",
        path,
        429,
        limited,
        headers={"X-Correlation-Id": "corr-1", "Retry-After": "3"},
        content_type=problem_json,
    )
    with pytest.raises(Exception, match=r"(?i)header"):
        _validate_response(openapi, "get", path, 429, limited, content_type=problem_json)
    unknown_code = {**not_found, "code": "teapot"}
    with pytest.raises(Exception, match=r"(?i)valid"):
        _validate_response(openapi, "get", path, 404, unknown_code, content_type=problem_json)


def fake_bearer_info(token: str) -> dict[str, str] | None:
    """Stand-in for ``app.auth.bearer_info`` while Connexion loads the spec.

    Args:
        token: The bearer token of the request.

    Returns:
        A token-info mapping for any non-empty token.
    """
    return {"sub": "tester"} if token else None


def _stub_health_live() -> tuple[dict[str, str], int, dict[str, str]]:
    """Stand-in handler of healthLive.

    The content type is explicit on purpose: every operation also declares
    ``application/problem+json`` responses, and Connexion 3 cannot infer the content
    type of a plain dict when an operation declares more than one
    (spec-first/connexion#1956). Real handlers must do the same.

    Returns:
        Body, status and headers.
    """
    return {"status": "ok"}, 200, {"Content-Type": "application/json", "X-Correlation-Id": "c"}


def _stub_unreachable(*_args: Any, **_kwargs: Any) -> None:
    """Stand-in for every other handler; the requests of the test never reach one."""
    raise AssertionError("request passed validation unexpectedly")


def _resolve_stub(function_name: str) -> Any:
    """Map a ``controller.operationId`` name to a stub handler.

    Args:
        function_name: The dotted name Connexion resolved from the operation.

    Returns:
        The stub to call for it.
    """
    assert function_name.startswith("app.handlers."), function_name
    if function_name == "app.handlers.health.healthLive":
        return _stub_health_live
    return _stub_unreachable


def test_connexion_loads_spec_with_strict_validation(spec: dict[str, Any]) -> None:
    """Connexion 3 serves the spec with strict validation: routes, probes, extra params.

    Handlers are stubs and the bearer function is replaced, so the test checks the
    document only, not the application code.
    """
    connexion = pytest.importorskip("connexion")
    from connexion.resolver import Resolver

    document = json.loads(json.dumps(spec))
    document["components"]["securitySchemes"]["bearerAuth"]["x-bearerInfoFunc"] = (
        f"{__name__}.fake_bearer_info"
    )
    app = connexion.AsyncApp(__name__)
    app.add_api(
        document,
        resolver=Resolver(function_resolver=_resolve_stub),
        strict_validation=True,
        validate_responses=True,
    )
    client = app.test_client()

    live = client.get("/healthz")
    assert live.status_code == 200
    assert live.json() == {"status": "ok"}
    assert live.headers["content-type"].startswith("application/json")

    messages = f"/api/v1/channels/{RUN_ID}/messages"
    auth = {"Authorization": "Bearer tok-alex"}
    assert client.get(messages).status_code == 401
    assert client.get(f"{messages}?bogus=1", headers=auth).status_code in {400, 422}
    assert client.get(f"{messages}?limit=101", headers=auth).status_code in {400, 422}
    extra_field = client.post(messages, json={"content_md": "hi", "author": "x"}, headers=auth)
    assert extra_field.status_code in {400, 422}
    empty = client.post(messages, json={"content_md": ""}, headers=auth)
    assert empty.status_code in {400, 422}


def test_semantic_422_rules_are_declared_on_body_operations(spec: dict[str, Any]) -> None:
    """``x-semantic-422`` lists body paths of operations that take a body and answer 422.

    The fuzzing run accepts a 422 for a schema-valid request only at these paths, so
    each must be a real property path of the request body.
    """
    for _method, _path, operation in _operations(spec):
        paths = operation.get("x-semantic-422")
        if paths is None:
            continue
        operation_id = operation["operationId"]
        assert "requestBody" in operation, operation_id
        assert "422" in operation["responses"], operation_id
        assert "422" in operation["description"], operation_id
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        schema = _resolve(spec, {"$ref": ref})
        for path in paths:
            assert path.startswith("body/"), (operation_id, path)
            node = schema
            for part in path.split("/")[1:]:
                node = _resolve(spec, node["properties"][part])
            assert node, (operation_id, path)


def test_a_401_declares_www_authenticate_bearer(spec: dict[str, Any]) -> None:
    """RFC 6750: every 401 names the Bearer scheme."""
    unauthorized = spec["components"]["responses"]["Unauthorized"]
    header = _resolve(spec, unauthorized["headers"]["WWW-Authenticate"])
    assert header["required"] is True
    assert header["schema"]["enum"] == ["Bearer"]
