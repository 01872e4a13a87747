"""Readiness: PostgreSQL reachable, OPA reachable, policies loaded."""

from __future__ import annotations

from sqlalchemy import text

from app.errors import ServiceUnavailable
from app.opa_client import OpaUndefined
from app.services import Services
from app.usecases.authorization import DECISION_PATH, Decision

__all__ = ["readiness"]


def readiness(services: Services) -> dict[str, object]:
    """Check every source; the policies count as loaded when ``health.ready`` is allowed.

    Raises:
        ServiceUnavailable: any check fails (the body says which source, no more).
    """
    try:
        with services.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        raise ServiceUnavailable("The database cannot answer.") from exc
    try:
        result = services.opa.query(
            DECISION_PATH,
            {"action": "health.ready", "actor": "", "resource": {"kind": "instance"}, "facts": {}},
        )
        loaded = Decision.parse(result).allow
    except OpaUndefined:
        loaded = False
    except Exception as exc:
        raise ServiceUnavailable("The policy engine cannot answer.") from exc
    if not loaded:
        raise ServiceUnavailable("The policies are not loaded.")
    return {"status": "ready", "checks": {"database": "ok", "opa": "ok", "policies": "ok"}}
