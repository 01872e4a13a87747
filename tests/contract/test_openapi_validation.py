"""Contract tests of ``openapi/openapi.yaml`` as the validators read it.

Without PostgreSQL or OPA: the run context examples validate against ``RunContext``
with openapi-core, and openapi-core rejects an e-mail field, a JSON null, a missing
correlation header and an unknown Problem code; Connexion 3 loads the spec with strict
validation.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

from tests.contract.openapi_document import resolve_ref

RUN_ID = "7e3c1a52-0d4b-4f6e-9a21-5c8b3f0e1d01"


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


def test_run_context_examples_validate(spec: dict[str, Any], openapi: OpenAPI) -> None:
    """The getRunContext examples are valid responses, null-free and e-mail-free."""
    operation = spec["paths"]["/api/v1/runs/{run_id}/context"]["get"]
    media = operation["responses"]["200"]["content"]["application/json"]
    examples = [resolve_ref(spec, example)["value"] for example in media["examples"].values()]
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
    example = resolve_ref(spec, spec["components"]["examples"]["RunContextFirstRun"])["value"]
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
