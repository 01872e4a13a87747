"""Provider and task privacy policies (aggregate: the policy facts of the privacy guard).

Written by the admin facts API and the world loader, read by the guard's lock
statement (``repositories/run_privacy.py``). A provider policy row makes a provider
known; a ceiling column holds an explicit level or NULL (the provider inherits the
global default, the task sets nothing). Levels are checked against the scale's names
by the callers; the scale's order and meaning live in the policies. Methods never
commit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, TextClause, text

__all__ = ["PrivacyPolicyRepository"]


def _upsert(table: str, key: str) -> TextClause:
    """Insert or replace the row of ``table`` whose primary key ``key`` is ``:key``.

    Both policy tables hold the two ceilings under the same names and differ only in
    table and key; the row comes back with its key labelled ``key``. Only the
    module-level names below are ever passed, never request content.
    """
    return text(
        f"""
    INSERT INTO {table} ({key}, audit_content_ceiling, background_answer_ceiling)
    VALUES (:key, :audit, :answer)
    ON CONFLICT ({key}) DO UPDATE SET
      audit_content_ceiling = EXCLUDED.audit_content_ceiling,
      background_answer_ceiling = EXCLUDED.background_answer_ceiling
    RETURNING {key} AS key, audit_content_ceiling, background_answer_ceiling
    """
    )


_SET_PROVIDER = _upsert("provider_policies", "provider_id")
_SET_TASK = _upsert("task_policies", "task_key")


class PrivacyPolicyRepository:
    """Writes provider and task policies (insert or replace)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _set(
        self, statement: Any, key: str, audit: str | None, answer: str | None
    ) -> dict[str, Any]:
        row = (
            self._conn.execute(statement, {"key": key, "audit": audit, "answer": answer})
            .mappings()
            .one()
        )
        return dict(row)

    def set_provider(
        self, provider_id: str, *, audit: str | None, answer: str | None
    ) -> dict[str, Any]:
        """Insert or replace a provider's policy; ``None`` inherits the global default."""
        return self._set(_SET_PROVIDER, provider_id, audit, answer)

    def set_task(self, task_key: str, *, audit: str | None, answer: str | None) -> dict[str, Any]:
        """Insert or replace a task's policy; ``None`` sets no ceiling of that kind."""
        return self._set(_SET_TASK, task_key, audit, answer)
