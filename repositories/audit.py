"""Audit log of denials, aggregated per (actor, action, resource kind, reason, policy
revision, mode) and window.

One ``INSERT ... ON CONFLICT DO UPDATE`` per denial: equal denials inside one window of
``audit.deny_aggregate_window`` seconds share a row whose ``count`` grows. Each row
names the revision of the policy bundle that denied (NULL when the sidecar served no
bundle revision) and the mode the decision names (``acting_for`` of a relayed call
decided for a bound run: ``run`` with the run's id; every other denial was decided on
the actor's own rights: ``own``). Rows hold ids and codes only, never content, handles
or display names.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

from app.domain.decisions import Decision

__all__ = ["AuditRepository", "SqlDenialAudit"]

_RECORD = text(
    """
    INSERT INTO audit_log (actor_id, action, resource_kind, reason, status, policy_revision,
                           acting_for, acting_for_run_id, window_start, count, first_at,
                           last_at)
    VALUES (CAST(:actor_id AS uuid), :action, :resource_kind, :reason, :status,
            :policy_revision, :acting_for, CAST(:acting_for_run_id AS uuid),
            to_timestamp(floor(extract(epoch FROM now()) / :window) * :window),
            1, now(), now())
    ON CONFLICT (actor_id, action, resource_kind, reason, policy_revision, acting_for,
                 acting_for_run_id, window_start)
    DO UPDATE SET count = audit_log.count + 1, last_at = now()
    """
)


class AuditRepository:
    """Writes aggregated denial rows."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def record_denial(
        self,
        *,
        actor_id: str | None,
        action: str,
        resource_kind: str,
        reason: str,
        status: int,
        window_seconds: int,
        policy_revision: str | None = None,
        acting_for: str = "own",
        acting_for_run_id: str | None = None,
    ) -> None:
        """Count one denial in the row of its window and revision (created on first use).

        ``acting_for`` is the mode that decided it: ``own``, or ``run`` with the run a
        relayed call was decided for in ``acting_for_run_id``.
        """
        self._conn.execute(
            _RECORD,
            {
                "actor_id": actor_id,
                "action": action,
                "resource_kind": resource_kind,
                "reason": reason,
                "status": status,
                "policy_revision": policy_revision,
                "acting_for": acting_for,
                "acting_for_run_id": acting_for_run_id,
                "window": window_seconds,
            },
        )


class SqlDenialAudit:
    """The denial sink of :class:`app.usecases.authorization.Authorizer`.

    Each denial is one atomic upsert on its own connection in autocommit, outside the
    request's transaction: that transaction is rolled back when the denial ends the
    request, and the audit row must survive it. The engine is the autocommit read pool,
    because taking a second connection from the write pool while the request holds one
    could exhaust that pool under a burst of denials.
    """

    def __init__(self, engine: Engine, *, window_seconds: int) -> None:
        self._engine = engine
        self._window = window_seconds

    def record(self, *, actor_id: str, action: str, resource_kind: str, decision: Decision) -> None:
        """Count one denial in the row of its window."""
        with self._engine.connect() as conn:
            AuditRepository(conn).record_denial(
                actor_id=actor_id,
                action=action,
                resource_kind=resource_kind,
                reason=decision.reason,
                status=decision.status,
                window_seconds=self._window,
                policy_revision=decision.revision,
                acting_for=decision.mode,
                acting_for_run_id=decision.run_id,
            )
