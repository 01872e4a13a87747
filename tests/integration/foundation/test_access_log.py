"""Every request leaves one access log line: operation, method, status, duration."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def _access_lines(log: str) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    return [entry for entry in entries if entry["logger"] == "app.access"]


def test_each_request_logs_its_operation_status_and_correlation_id(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    listed = service.client("tok-sam").get(messages_path(ids["support/general"]))
    # Not in the spec, so the validating client cannot check it.
    missing = service.client("tok-sam").get("/api/v1/nowhere/zq-path-text", validate=False)

    lines = _access_lines(service.log.getvalue())

    assert [(line["operation_id"], line["method"], line["status"]) for line in lines] == [
        ("listChannelMessages", "GET", 200),
        ("unmatched", "GET", 404),
    ]
    assert lines[0]["correlation_id"] == listed.headers["X-Correlation-Id"]
    assert lines[1]["correlation_id"] == missing.headers["X-Correlation-Id"]
    assert all(line["duration_ms"] >= 0 for line in lines)
    # The path is never logged: a client can put any text into it.
    assert "zq-path-text" not in service.log.getvalue()
