"""Smoke: the demo run's context over HTTP."""

from __future__ import annotations

from typing import Any

from tests.support.world import demo_world, load


def test_demo_run_context(make_service: Any, database_url: str) -> None:
    ids = load(database_url, demo_world())
    service = make_service()
    response = service.client("tok-lotse").get(f"/api/v1/runs/{ids['r1']}/context")
    print(response.json())
    assert response.status_code == 200
