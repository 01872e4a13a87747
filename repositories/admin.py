"""Writes of the admin facts API (grants, principals, spaces, channels, threads, runs,
follow-ups, sessions, message tombstones).

Each method is one or two statements and returns the changed row as a plain dict of
JSON-ready values, or ``None`` when the target does not exist. Methods never commit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

__all__ = ["AdminRepository"]

_GRANT = (
    "id::text, level, expires_at, created_at, "
    "subject_principal_id::text AS subject_principal_id, "
    "subject_group_id::text AS subject_group_id, "
    "target_space_id::text AS target_space_id, target_channel_id::text AS target_channel_id"
)
_CHANNEL = (
    "id::text, space_id::text, kind, archived_at IS NOT NULL AS archived, "
    "history_backfill_limit, operator_agent_id::text, allow_mentioned_agents, auto_thread"
)
_THREAD = "id::text, channel_id::text, kind, parent_message_id::text, operator_agent_id::text"
_RUN = (
    "id::text, thread_id::text, agent_id::text, agent_session_id::text, trigger_kind, "
    "triggering_message_id::text, triggered_by::text, state, queued_at, task_key"
)
_FOLLOWUP = "id::text, run_id::text, message_id::text, state"
_SESSION = "id::text, thread_id::text, agent_id::text, is_current, started"

_EXISTS: dict[str, str] = {
    "principal": "SELECT kind FROM principals WHERE id = CAST(:id AS uuid)",
    "group": "SELECT 'group' FROM groups WHERE id = CAST(:id AS uuid)",
    "space": "SELECT 'space' FROM spaces WHERE id = CAST(:id AS uuid)",
    "channel": "SELECT kind FROM channels WHERE id = CAST(:id AS uuid)",
    "thread": "SELECT kind FROM threads WHERE id = CAST(:id AS uuid)",
    "message": "SELECT thread_id::text FROM messages WHERE id = CAST(:id AS uuid)",
    "run": "SELECT state FROM runs WHERE id = CAST(:id AS uuid)",
    "session": "SELECT thread_id::text FROM agent_sessions WHERE id = CAST(:id AS uuid)",
}

_SQL: dict[str, str] = {
    "create_grant": f"""
        INSERT INTO grants (subject_principal_id, subject_group_id, target_space_id,
                            target_channel_id, level, expires_at)
        VALUES (CAST(:sp AS uuid), CAST(:sg AS uuid), CAST(:ts AS uuid), CAST(:tc AS uuid),
                :level, CAST(:expires_at AS timestamptz))
        RETURNING {_GRANT}""",
    "delete_grant": "DELETE FROM grants WHERE id = CAST(:id AS uuid) RETURNING id",
    "update_principal": """
        UPDATE principals SET status = COALESCE(CAST(:status AS text), status),
                              acting_for = COALESCE(CAST(:acting_for AS text), acting_for)
        WHERE id = CAST(:id AS uuid)
        RETURNING id::text, kind, status, is_owner, acting_for""",
    "update_space": """
        UPDATE spaces SET archived_at = CASE WHEN :archived THEN COALESCE(archived_at, now())
                                              ELSE NULL END
        WHERE id = CAST(:id AS uuid) RETURNING id::text, archived_at IS NOT NULL AS archived""",
    "update_channel": f"""
        UPDATE channels SET
          archived_at = CASE WHEN CAST(:archived AS boolean) IS NULL THEN archived_at
                             WHEN CAST(:archived AS boolean) THEN COALESCE(archived_at, now())
                             ELSE NULL END,
          history_backfill_limit = COALESCE(CAST(:limit AS integer), history_backfill_limit),
          operator_agent_id = COALESCE(CAST(:operator AS uuid), operator_agent_id),
          allow_mentioned_agents = COALESCE(CAST(:mentioned AS boolean), allow_mentioned_agents),
          auto_thread = COALESCE(CAST(:auto_thread AS boolean), auto_thread)
        WHERE id = CAST(:id AS uuid) RETURNING {_CHANNEL}""",
    "move_thread": f"""
        UPDATE threads SET channel_id = CAST(:channel_id AS uuid)
        WHERE id = CAST(:id AS uuid) AND kind <> 'main' RETURNING {_THREAD}""",
    "create_run": f"""
        INSERT INTO runs (thread_id, agent_id, agent_session_id, trigger_kind,
                          triggering_message_id, triggered_by, state, task_key)
        VALUES (CAST(:thread_id AS uuid), CAST(:agent_id AS uuid), CAST(:session_id AS uuid),
                :trigger_kind, CAST(:message_id AS uuid), CAST(:triggered_by AS uuid), :state,
                :task_key)
        RETURNING {_RUN}""",
    # A state change bumps the envelope version: a rotation prepared before it fails.
    "update_run": f"""
        UPDATE runs SET state = :state,
          envelope_version = envelope_version + CASE WHEN state = :state THEN 0 ELSE 1 END
        WHERE id = CAST(:id AS uuid) RETURNING {_RUN}""",
    "start_session": """
        UPDATE agent_sessions SET started = true WHERE id = CAST(:id AS uuid)""",
    "create_followup": f"""
        INSERT INTO run_followups (run_id, message_id, state)
        VALUES (CAST(:run_id AS uuid), CAST(:message_id AS uuid), :state)
        RETURNING {_FOLLOWUP}""",
    "update_followup": f"""
        UPDATE run_followups SET state = :state WHERE id = CAST(:id AS uuid)
        RETURNING {_FOLLOWUP}""",
    "thread_operator": """
        SELECT COALESCE(t.operator_agent_id, c.operator_agent_id)::text
        FROM threads t JOIN channels c ON c.id = t.channel_id
        WHERE t.id = CAST(:id AS uuid)""",
    "end_session": """
        UPDATE agent_sessions SET is_current = false
        WHERE thread_id = CAST(:id AS uuid) AND is_current""",
    "new_session": f"""
        INSERT INTO agent_sessions (thread_id, agent_id, is_current, started)
        VALUES (CAST(:id AS uuid), CAST(:agent_id AS uuid), true, :started)
        RETURNING {_SESSION}""",
}


class AdminRepository:
    """The admin facts API's writes."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _one(self, sql: str, **params: Any) -> dict[str, Any] | None:
        row = self._conn.execute(text(sql), params).mappings().first()
        return None if row is None else dict(row)

    def _insert_unique(self, sql: str, **params: Any) -> dict[str, Any] | None:
        """Insert one row; ``None`` when a unique constraint says it exists already."""
        try:
            with self._conn.begin_nested():
                return self._one(sql, **params)
        except IntegrityError:
            return None

    def lookup(self, kind: str, entity_id: str) -> Any:
        """A small fact about an entity (its kind, state or thread), ``None`` if unknown."""
        return self._conn.execute(text(_EXISTS[kind]), {"id": entity_id}).scalar()

    def create_grant(
        self, *, subject: dict[str, str], target: dict[str, str], level: str, expires_at: str | None
    ) -> dict[str, Any] | None:
        """Insert a grant (subject and target checked by the caller); ``None`` if it exists."""
        return self._insert_unique(
            _SQL["create_grant"],
            sp=subject["id"] if subject["kind"] == "principal" else None,
            sg=subject["id"] if subject["kind"] == "group" else None,
            ts=target["id"] if target["kind"] == "space" else None,
            tc=target["id"] if target["kind"] == "channel" else None,
            level=level,
            expires_at=expires_at,
        )

    def delete_grant(self, grant_id: str) -> bool:
        """Delete a grant; False when unknown."""
        return self._one(_SQL["delete_grant"], id=grant_id) is not None

    def update_principal(
        self, principal_id: str, *, status: str | None, acting_for: str | None
    ) -> dict[str, Any] | None:
        """Change a principal's status and (agents) ``acting_for``; ``None`` keeps a value."""
        return self._one(
            _SQL["update_principal"], id=principal_id, status=status, acting_for=acting_for
        )

    def update_space(self, space_id: str, archived: bool) -> dict[str, Any] | None:
        """Archive or restore a space."""
        return self._one(_SQL["update_space"], id=space_id, archived=archived)

    def update_channel(self, channel_id: str, changes: dict[str, Any]) -> dict[str, Any] | None:
        """Change a channel's archive state and switches (absent keys stay as they are)."""
        return self._one(
            _SQL["update_channel"],
            id=channel_id,
            archived=changes.get("archived"),
            limit=changes.get("history_backfill_limit"),
            operator=changes.get("operator_agent_id"),
            mentioned=changes.get("allow_mentioned_agents"),
            auto_thread=changes.get("auto_thread"),
        )

    def move_thread(self, thread_id: str, channel_id: str) -> dict[str, Any] | None:
        """Move a non-main thread; its parent message keeps pointing into the source."""
        return self._one(_SQL["move_thread"], id=thread_id, channel_id=channel_id)

    def create_run(self, **fields: Any) -> dict[str, Any]:
        """Insert a run."""
        row = self._one(_SQL["create_run"], **fields)
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return row

    def update_run(self, run_id: str, state: str) -> dict[str, Any] | None:
        """Change a run's state; a run that starts running starts its session."""
        row = self._one(_SQL["update_run"], id=run_id, state=state)
        if row is not None and state == "running" and row["agent_session_id"]:
            self._conn.execute(text(_SQL["start_session"]), {"id": row["agent_session_id"]})
        return row

    def create_followup(self, run_id: str, message_id: str, state: str) -> dict[str, Any] | None:
        """Insert a follow-up of a run; ``None`` when the run already has this message."""
        return self._insert_unique(
            _SQL["create_followup"], run_id=run_id, message_id=message_id, state=state
        )

    def update_followup(self, followup_id: str, state: str) -> dict[str, Any] | None:
        """Change a follow-up's state."""
        return self._one(_SQL["update_followup"], id=followup_id, state=state)

    def thread_operator(self, thread_id: str) -> str | None:
        """The thread's fixed operator, else its channel's operator."""
        value = self._conn.execute(text(_SQL["thread_operator"]), {"id": thread_id}).scalar()
        return None if value is None else str(value)

    def replace_session(self, thread_id: str, agent_id: str, *, started: bool) -> dict[str, Any]:
        """End the thread's current session and make a new one current."""
        self._conn.execute(text(_SQL["end_session"]), {"id": thread_id})
        row = self._one(_SQL["new_session"], id=thread_id, agent_id=agent_id, started=started)
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return row
