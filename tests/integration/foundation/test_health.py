"""Liveness and readiness probes."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.integration


def test_healthz_answers_200_without_a_token(make_service: Any) -> None:
    service = make_service()

    response = service.client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["content-type"].startswith("application/json")


def test_readyz_answers_200_with_every_check(make_service: Any) -> None:
    service = make_service()

    response = service.client().get("/readyz")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "opa": "ok", "policies": "ok"},
    }


def test_health_probes_ignore_a_bad_token(make_service: Any) -> None:
    service = make_service()

    assert service.client("tok-unknown").get("/healthz").status_code == 200
    assert service.client("tok-unknown").get("/readyz").status_code == 200


def test_an_unknown_path_answers_a_404_problem(make_service: Any) -> None:
    service = make_service()

    response = service.client("tok-robin").get("/api/v1/nothing-here", validate=False)

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "not_found"
    assert response.json()["correlation_id"] == response.headers["X-Correlation-Id"]
