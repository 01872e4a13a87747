"""The README example of a session-context resolution, against the demo world."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.session_context.conftest import RESOLVE
from tests.support.world import demo_world, load

pytestmark = pytest.mark.integration


def test_the_readme_example_answers_as_documented(
    make_service: Callable[..., Any], database_url: str
) -> None:
    load(database_url, demo_world())
    alex = make_service().client("tok-alex")

    response = alex.post(
        RESOLVE,
        json={
            "context": {
                "version": 1,
                "providers": {
                    "surface": {
                        "available_surfaces": [
                            {"surface_key": "matters.list"},
                            {"surface_key": "settings.team"},
                        ]
                    },
                    "permissions": {"granted": ["settings:write"]},
                },
            },
            "intents": [
                {
                    "name": "navigate_to",
                    "plane": "client",
                    "params": {"surface_key": "settings.team"},
                },
                {"name": "query_matters", "plane": "server", "params": {"query": "overdue"}},
                {"name": "forged_admin_tool", "plane": "server", "params": {}},
            ],
        },
    )

    assert response.status_code == 200, response.text
    assert response.json() == {
        "permissions": ["matters:read"],
        "reachable_surfaces": [
            {"surface_key": "matters.list", "required_permission": "matters:read"}
        ],
        "decisions": [
            {
                "name": "navigate_to",
                "plane": "client",
                "decision": "denied",
                "reason": "not_reachable",
            },
            {"name": "query_matters", "plane": "server", "decision": "accepted"},
            {
                "name": "forged_admin_tool",
                "plane": "server",
                "decision": "denied",
                "reason": "unknown_tool",
            },
        ],
    }
    url = {
        "name": "navigate_to",
        "plane": "client",
        "params": {"surface_key": "https://example.com"},
    }
    body = {"context": {"version": 1, "providers": {}}, "intents": [url]}
    assert alex.post(RESOLVE, json=body).status_code == 422
    lotse = alex.as_token("tok-lotse")
    assert lotse.post(RESOLVE, json=body | {"intents": []}).status_code == 403
