"""The newest position of each thread, kept by the database: ``threads.last_seq``.

Revision ID: 0005_read_bounds
Revises: 0003_privacy
Create Date: 2026-12-02

Every read of a thread window is bounded by a ``thread_seq`` range computed from its
anchor (``repositories/windows.py``, ADR 0010). A context window's anchor is its
triggering or parent message; a listing's first page has none but the thread's
newest position, and ``max(thread_seq)`` is a read whose cost depends on the plan (an
aggregate over a scan of the whole thread when the planner has no statistics). So the
thread row carries it:

* ``threads.last_seq``: the highest ``thread_seq`` of the thread's messages (0 when
  empty), filled from the existing messages;
* two statement-level triggers on ``messages`` (after INSERT and after UPDATE, with a
  transition table: one UPDATE of ``threads`` per statement, also for a bulk COPY)
  raise it to the highest ``thread_seq`` written. It never goes down: a message moved
  to a lower position leaves a position without a message, which the bounded windows
  count as a gap. Posting reads the next position from it (the thread row is locked
  by the poster), so no statement of the write path aggregates over a thread either.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_read_bounds"
down_revision: str | None = "0004_policy_revision"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FUNCTION = """
CREATE FUNCTION threads_raise_last_seq() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE threads t SET last_seq = w.last_seq
  FROM (SELECT thread_id, max(thread_seq) AS last_seq FROM written GROUP BY thread_id) w
  WHERE t.id = w.thread_id AND t.last_seq < w.last_seq;
  RETURN NULL;
END
$$
"""


def upgrade() -> None:
    """Add ``threads.last_seq``, fill it, and keep it up to date with triggers."""
    op.add_column(
        "threads",
        sa.Column("last_seq", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )
    op.create_check_constraint(op.f("ck_threads_last_seq_not_negative"), "threads", "last_seq >= 0")
    op.execute(
        """
        UPDATE threads t SET last_seq = m.last_seq
        FROM (SELECT thread_id, max(thread_seq) AS last_seq FROM messages
              GROUP BY thread_id) m
        WHERE t.id = m.thread_id
        """
    )
    op.execute(_FUNCTION)
    for event in ("INSERT", "UPDATE"):
        op.execute(
            f"CREATE TRIGGER messages_raise_last_seq_{event.lower()} AFTER {event} ON messages "
            "REFERENCING NEW TABLE AS written FOR EACH STATEMENT "
            "EXECUTE FUNCTION threads_raise_last_seq()"
        )


def downgrade() -> None:
    """Drop the triggers, their function and the column."""
    for event in ("insert", "update"):
        op.execute(f"DROP TRIGGER messages_raise_last_seq_{event} ON messages")
    op.execute("DROP FUNCTION threads_raise_last_seq()")
    op.drop_constraint(op.f("ck_threads_last_seq_not_negative"), "threads", type_="check")
    op.drop_column("threads", "last_seq")
