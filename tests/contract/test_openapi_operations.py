"""Contract tests of ``openapi/openapi.yaml``: the document and its operation table.

The spec is served by Connexion 3 with strict validation, so its shape is a contract
of its own. These tests check, without PostgreSQL or OPA, that the document is a valid
OpenAPI 3.0.3 description; that the operation table is exactly the expected one and
every operation carries the route metadata the service relies on (``operationId``,
``x-openapi-router-controller``, ``x-action``, the action decided in Rego, and
``x-rate-limit-class``); that security is bearer except for the health probes; and
that each ``x-semantic-422`` path is a real body path.
"""

from __future__ import annotations

import re
from typing import Any

from openapi_spec_validator import validate

from tests.contract.openapi_document import iter_operations, resolve_ref

RATE_LIMIT_CLASSES = frozenset(
    {"agent_runtime", "chat", "admin", "authz", "health", "session_context", "runner"}
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
    for method, path, operation in iter_operations(spec):
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
    for method, path, operation in iter_operations(spec):
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


def test_security_is_bearer_except_health(spec: dict[str, Any]) -> None:
    """A global bearer scheme applies; only the health probes opt out."""
    assert spec["security"] == [{"bearerAuth": []}]
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert scheme["type"] == "http"
    assert scheme["scheme"] == "bearer"
    assert scheme["x-bearerInfoFunc"] == "app.auth.bearer_info"
    for _method, _path, operation in iter_operations(spec):
        if operation["x-rate-limit-class"] == "health":
            assert operation.get("security") == [], operation["operationId"]
        else:
            assert "security" not in operation, operation["operationId"]


def test_semantic_422_rules_are_declared_on_body_operations(spec: dict[str, Any]) -> None:
    """``x-semantic-422`` lists body paths of operations that take a body and answer 422.

    The fuzzing run accepts a 422 for a schema-valid request only at these paths, so
    each must be a real property path of the request body.
    """
    for _method, _path, operation in iter_operations(spec):
        paths = operation.get("x-semantic-422")
        if paths is None:
            continue
        operation_id = operation["operationId"]
        assert "requestBody" in operation, operation_id
        assert "422" in operation["responses"], operation_id
        assert "422" in operation["description"], operation_id
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        schema = resolve_ref(spec, {"$ref": ref})
        for path in paths:
            assert path.startswith("body/"), (operation_id, path)
            node = schema
            for part in path.split("/")[1:]:
                node = resolve_ref(spec, node["properties"][part])
            assert node, (operation_id, path)
