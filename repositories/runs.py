"""Runs, their sessions and follow-ups (aggregate: run).

:meth:`RunRepository.context_facts` reads in one statement everything a context read
needs to know about a run before any message is loaded: the run row, its thread and
the thread's current channel, the channel's switches, the thread's current session
and the latest earlier run of the same agent in that session. These reads load one
run (and the thread it names), whose visibility ``run.context.read`` decides next:
the "resource already checked" exception of the visible-channel rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY, UUID

__all__ = ["RunContextFacts", "RunRepository"]


@dataclass(frozen=True, slots=True)
class RunContextFacts:
    """The run and its surroundings, as stored (ids, states and numbers only)."""

    run_id: str
    thread_id: str
    agent_id: str
    triggered_by: str | None
    state: str
    trigger_kind: str
    triggering_message_id: str | None
    channel_id: str
    parent_message_id: str | None
    thread_operator_id: str | None
    channel_operator_id: str | None
    history_backfill_limit: int | None
    session_id: str | None
    session_agent_id: str | None
    session_started: bool | None
    has_earlier_run: bool
    earlier_trigger_thread_id: str | None
    earlier_trigger_seq: int | None


# The earlier runs are those of the same agent in the thread's current session that
# were queued before this one; only the newest with a triggering message matters for
# the floor, and only the existence of any for the session mode.
_CONTEXT_FACTS = text(
    """
    SELECT r.id::text, r.thread_id::text, r.agent_id::text, r.triggered_by::text, r.state,
           r.trigger_kind, r.triggering_message_id::text,
           t.channel_id::text, t.parent_message_id::text,
           t.operator_agent_id::text, c.operator_agent_id::text, c.history_backfill_limit,
           s.id::text, s.agent_id::text, s.started,
           EXISTS (SELECT 1 FROM runs e
                   WHERE e.agent_session_id = s.id AND e.agent_id = r.agent_id
                     AND e.id <> r.id AND e.queued_at < r.queued_at),
           prev.thread_id::text, prev.thread_seq
    FROM runs r
    JOIN threads t ON t.id = r.thread_id
    JOIN channels c ON c.id = t.channel_id
    LEFT JOIN agent_sessions s ON s.thread_id = r.thread_id AND s.is_current
    LEFT JOIN LATERAL (
        SELECT m.thread_id, m.thread_seq
        FROM runs e JOIN messages m ON m.id = e.triggering_message_id
        WHERE e.agent_session_id = s.id AND e.agent_id = r.agent_id
          AND e.id <> r.id AND e.queued_at < r.queued_at
        ORDER BY e.queued_at DESC, e.id DESC
        LIMIT 1
    ) prev ON true
    WHERE r.id = CAST(:run_id AS uuid)
    """
)

_DELIVERED = text(
    """
    SELECT DISTINCT f.message_id::text
    FROM run_followups f JOIN runs r ON r.id = f.run_id
    WHERE r.agent_session_id = CAST(:session_id AS uuid)
      AND f.state IN ('delivered', 'absorbed')
      AND f.message_id = ANY(:message_ids)
    """
).bindparams(bindparam("message_ids", type_=ARRAY(UUID(as_uuid=False))))


class RunRepository:
    """Reads of runs for the context use case; never writes."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def context_facts(self, run_id: str) -> RunContextFacts | None:
        """Everything about the run a context read needs first, or ``None`` if unknown."""
        row = self._conn.execute(_CONTEXT_FACTS, {"run_id": run_id}).first()
        return None if row is None else RunContextFacts(*row)

    def delivered_followups(self, session_id: str, message_ids: list[str]) -> set[str]:
        """Ids among ``message_ids`` delivered or absorbed as follow-ups in the session."""
        if not message_ids:
            return set()
        rows = self._conn.execute(
            _DELIVERED, {"session_id": session_id, "message_ids": message_ids}
        ).scalars()
        return set(rows)
