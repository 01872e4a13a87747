"""Fail closed: a policy engine that cannot answer, or answers garbage, is a 503.

Never a resolution with fewer checks: no permissions, no reachable surface and no
accepted intent come out of an OPA that is down or malformed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.session_context.conftest import RESOLVE, WORLD
from tests.support.faults import StubOpa
from tests.support.services import free_port
from tests.support.world import load
from world import parse_world_yaml

pytestmark = pytest.mark.integration

BODY = {
    "context": {
        "version": 1,
        "providers": {"surface": {"available_surfaces": [{"surface_key": "home"}]}},
    },
    "intents": [{"name": "query_matters", "plane": "server", "params": {}}],
}


ALLOW = {"allow": True, "reason": "allowed", "status": 200}


@pytest.mark.parametrize(
    "result",
    [
        # an allow without the resolution
        {"decision": ALLOW},
        # one decision too few for the intents sent
        {"decision": ALLOW, "permissions": [], "reachable": [], "intents": []},
        # a permission the caller does not hold
        {
            "decision": ALLOW,
            "permissions": ["settings:write"],
            "reachable": [],
            "intents": [{"decision": "accepted"}],
        },
        # a surface the client never listed
        {
            "decision": ALLOW,
            "permissions": ["matters:read"],
            "reachable": [{"surface_key": "settings.team"}],
            "intents": [{"decision": "accepted"}],
        },
        "allow",
    ],
    ids=["no resolution", "missing intent", "permission not held", "surface not sent", "string"],
)
def test_a_malformed_policy_answer_is_503(
    make_service: Callable[..., Any], database_url: str, result: Any
) -> None:
    load(database_url, parse_world_yaml(WORLD.read_text(encoding="utf-8")))
    with StubOpa.result(result) as opa:
        service = make_service(opa_url=opa.url)

        response = service.client("tok-alex").post(RESOLVE, json=BODY)

    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"


def test_an_unreachable_policy_engine_is_503(
    make_service: Callable[..., Any], database_url: str
) -> None:
    load(database_url, parse_world_yaml(WORLD.read_text(encoding="utf-8")))
    service = make_service(opa_url=f"http://127.0.0.1:{free_port()}")

    response = service.client("tok-alex").post(RESOLVE, json=BODY)

    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
