"""Every operation names its action and rate-limit class, and Rego knows every action."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from app.config import SCHEMA
from app.http.routes import load_routes, load_spec
from app.policy import REASONS
from tests.support.services import OpaServer

pytestmark = pytest.mark.integration

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    spec = load_spec()
    return [
        (method.upper(), path, item[method])
        for path, item in spec["paths"].items()
        for method in METHODS
        if method in item
    ]


def test_every_operation_declares_an_action_and_a_rate_limit_class() -> None:
    operations = _operations()

    assert operations
    for method, path, operation in operations:
        assert isinstance(operation.get("x-action"), str), (method, path)
        assert isinstance(operation.get("x-rate-limit-class"), str), (method, path)
        assert operation["x-action"], (method, path)


def test_every_rate_limit_class_has_a_configuration_key() -> None:
    keys = {key.name for key in SCHEMA}

    for method, path, operation in _operations():
        rate_class = operation["x-rate-limit-class"]
        if rate_class == "health":
            # Probes are never limited (app/http/ratelimit.py) and carry no token.
            assert operation.get("security") == [], (method, path)
            continue
        name = f"rate_limit.{rate_class}.per_minute"
        assert name in keys, (method, path, name)


def test_every_action_is_known_to_the_policies(opa_server: OpaServer) -> None:
    response = requests.get(f"{opa_server.url}/v1/data/authz/actions", timeout=10)
    response.raise_for_status()
    known = set(response.json()["result"])

    missing = {
        (method, path, op["x-action"])
        for method, path, op in _operations()
        if op["x-action"] not in known
    }

    assert missing == set()


def test_every_action_gets_a_decision_that_is_not_unknown_action(
    opa_server: OpaServer,
) -> None:
    for method, path, operation in _operations():
        response = requests.post(
            f"{opa_server.url}/v1/data/authz/decision",
            json={
                "input": {
                    "action": operation["x-action"],
                    "actor": "",
                    "facts": {},
                    "resource": {"kind": "instance"},
                }
            },
            timeout=10,
        )
        decision = response.json()["result"]
        assert decision["reason"] != "unknown_action", (method, path)


def test_an_action_the_policies_do_not_know_is_denied(opa_server: OpaServer) -> None:
    response = requests.post(
        f"{opa_server.url}/v1/data/authz/decision",
        json={
            "input": {
                "action": "message.obliterate",
                "actor": "",
                "facts": {},
                "resource": {"kind": "instance"},
            }
        },
        timeout=10,
    )

    assert response.json()["result"] == {"allow": False, "reason": "unknown_action", "status": 403}


def test_the_routes_the_app_serves_are_the_operations_of_the_spec() -> None:
    routes = load_routes(load_spec())

    assert {(r.method, r.path) for r in routes.values()} == {
        (method, path) for method, path, _ in _operations()
    }
    for _, _, operation in _operations():
        route = routes[operation["operationId"]]
        assert route.action == operation["x-action"]
        assert route.rate_class == operation["x-rate-limit-class"]


def test_the_gateway_knows_exactly_the_reasons_the_policies_can_give(
    opa_server: OpaServer,
) -> None:
    # app/policy/results.py rejects a reason it does not know (fail closed), so a reason
    # added to the policies without the gateway would turn every such answer into 503.
    response = requests.get(f"{opa_server.url}/v1/data/authz/results/reasons", timeout=10)
    response.raise_for_status()

    assert set(response.json()["result"]) == REASONS
