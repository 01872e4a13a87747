"""A resolution leaves no trace: no row, no audit entry, no client content in any log.

decisions.md S3-6 classifies the resolution as read-only and unaudited. Canary strings go
into every provider of the client's bag (the permissions provider included), the surface
keys, the tool names and the params; after allowed, denied and refused resolutions
the app's log, OPA's output with its decision logs and every table are searched.
The cost is fixed: one OPA round trip and two SQL statements per resolution.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.integration.session_context.conftest import SessionService

pytestmark = pytest.mark.integration

CANARIES = {
    "title": "canary-title-4b7e21",
    "claimed permission": "canary:claimed-permission-93af",
    "surface key": "canary-surface-key-1c5d",
    "cpc": "canary-page-entity-77e0",
    "kb": "canary-kb-document-0f3b",
    "unknown provider": "canary-deadline-6a2c",
    "client tool": "canary-client-tool-58d9",
    "tool name": "canary_tool_name_e41a",
    "params": "canary-params-value-2d8f",
    "navigation param": "canary-route-value-c3b6",
}


def _body() -> dict[str, Any]:
    return {
        "context": {
            "version": 1,
            "providers": {
                "surface": {
                    "current_surface_key": CANARIES["surface key"],
                    "available_surfaces": [
                        {"surface_key": "home", "title": CANARIES["title"]},
                        {
                            "surface_key": CANARIES["surface key"],
                            "required_permission": "matters:read",
                        },
                        {"surface_key": "matters.list"},
                    ],
                },
                "permissions": {"granted": ["settings:write", CANARIES["claimed permission"]]},
                "cpc": {"entity_id": CANARIES["cpc"], "title": CANARIES["title"]},
                "kb": {"document_ids": [CANARIES["kb"]]},
                "deadlines": {"items": [CANARIES["unknown provider"]]},
                "clientTools": {"tools": [{"name": CANARIES["client tool"]}]},
            },
        },
        "intents": [
            {
                "name": "navigate_to",
                "plane": "client",
                "params": {
                    "surface_key": CANARIES["surface key"],
                    "params": {"matter_id": CANARIES["navigation param"]},
                },
            },
            {"name": "query_matters", "plane": "server", "params": {"query": CANARIES["params"]}},
            {"name": CANARIES["tool name"], "plane": "server", "params": {"x": CANARIES["params"]}},
        ],
    }


def _row_counts(service: SessionService) -> dict[str, int]:
    tables = [
        row[0]
        for row in service.sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )
    ]
    assert "audit_log" in tables
    return {table: int(service.sql(f'SELECT count(*) FROM "{table}"')[0][0]) for table in tables}


def _resolve_entries(service: SessionService) -> int:
    return service.opa.read_log().replace(" ", "").count('"path":"sessioncontext/resolve"')


def test_no_row_no_audit_and_no_client_content_anywhere(service: SessionService) -> None:
    before = _row_counts(service)
    logged_before = _resolve_entries(service)

    allowed = service.resolve("tok-alex", _body())
    refused_agent = service.resolve("tok-lotse", _body())
    refused_inactive = service.resolve("tok-writer", _body())
    invalid = _body()
    invalid["intents"][0]["params"]["surface_key"] = (
        f"https://{CANARIES['surface key']}.example.com"
    )
    unprocessable = service.resolve("tok-alex", invalid)

    assert allowed.status_code == 200
    assert [d["decision"] for d in allowed.json()["decisions"]] == ["denied", "accepted", "denied"]
    assert (refused_agent.status_code, refused_inactive.status_code) == (403, 403)
    assert unprocessable.status_code == 422

    # No business row and no audit entry, on an allow, a refusal or a 422.
    assert _row_counts(service) == before
    assert before["audit_log"] == 0

    # OPA writes its decision log to the console asynchronously: wait for the three
    # entries (the allow and both refusals; the 422 never reached OPA).
    deadline = time.monotonic() + 10
    while _resolve_entries(service) < logged_before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _resolve_entries(service) == logged_before + 3
    sinks = {
        "app log": service.log.getvalue(),
        "opa log": service.opa.read_log(),
        "refusals": refused_agent.text + refused_inactive.text,
        "422 body": unprocessable.text,
    }
    for sink, text in sinks.items():
        for what, canary in CANARIES.items():
            assert canary not in text, f"{what} reached the {sink}"


def test_one_opa_round_trip_and_two_sql_statements(service: SessionService) -> None:
    service.resolve("tok-sam", _body())  # warm the pools
    opa_before, sql_before = service.opa_calls, service.sql_statements

    response = service.resolve("tok-sam", _body())

    assert response.status_code == 200
    # SQL: the token lookup and the caller's fact bundle; OPA: the one batch query.
    assert (service.opa_calls - opa_before, service.sql_statements - sql_before) == (1, 2)


def test_a_refused_caller_costs_the_same_and_writes_nothing(service: SessionService) -> None:
    opa_before, sql_before = service.opa_calls, service.sql_statements

    response = service.resolve("tok-importer", _body())

    assert response.status_code == 403
    assert (service.opa_calls - opa_before, service.sql_statements - sql_before) == (1, 2)
    assert int(service.sql("SELECT count(*) FROM audit_log")[0][0]) == 0
