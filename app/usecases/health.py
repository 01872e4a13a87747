"""Readiness: PostgreSQL reachable, OPA reachable, policies loaded (and which revision)."""

from __future__ import annotations

from sqlalchemy import Engine, text

from app.errors import ServiceUnavailable
from app.policy import PolicyGateway

__all__ = ["Readiness"]


class Readiness:
    """Answer ``/readyz``.

    Args:
        engine: the database engine to probe.
        policy: the policy gateway (``health.ready`` must be allowed).
    """

    def __init__(self, *, engine: Engine, policy: PolicyGateway) -> None:
        self._engine = engine
        self._policy = policy

    def __call__(self) -> dict[str, object]:
        """Check every source; the policies count as loaded when ``health.ready`` is allowed.

        The answer names the revision of the policy bundle the sidecar serves
        (``policy_revision``; absent when it serves no bundle revision).

        Raises:
            ServiceUnavailable: the database cannot answer, or the policies are not
                loaded (the body says which source, no more).
            OpaUnavailable: OPA cannot answer, or (``policy.require_bundle_revision``)
                serves no bundle revision (the edge answers 503).
        """
        try:
            with self._engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as exc:
            raise ServiceUnavailable("The database cannot answer.") from exc
        loaded = self._policy.loaded_policies()
        if loaded is None or not loaded.allow:
            raise ServiceUnavailable("The policies are not loaded.")
        answer: dict[str, object] = {
            "status": "ready",
            "checks": {"database": "ok", "opa": "ok", "policies": "ok"},
        }
        if loaded.revision is not None:
            answer["policy_revision"] = loaded.revision
        return answer
