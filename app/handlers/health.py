"""Health probes: liveness of the process and readiness of its sources."""

from __future__ import annotations

from starlette.responses import Response

from app.handlers.common import json_response, request_services
from app.http.correlation import note_operation

__all__ = ["health_live", "health_ready"]


def health_live() -> Response:
    """200 while the process runs."""
    note_operation("healthLive")
    return json_response({"status": "ok"})


def health_ready() -> Response:
    """200 when PostgreSQL answers, OPA answers and the policies are loaded; else 503."""
    note_operation("healthReady")
    return json_response(request_services().use_cases.readiness())
