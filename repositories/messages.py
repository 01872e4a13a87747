"""Messages and threads (aggregate: thread with its messages).

Every read selects the single representation of a message (:data:`MESSAGE_COLUMNS`):
author reference, origin, kind, content, the thread's current channel and the
attachments, in one statement. Pages are chosen in SQL with ``LIMIT`` within a
``thread_seq`` range bounded from their anchor (:mod:`repositories.windows`; the first
page's anchor is ``threads.last_seq``), so the cost does not grow with the thread
whatever plan a connection has cached. The reads are prepared statements (ADR 0010).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, text

from app.domain.representation import StoredMessage
from repositories.prepared import PreparedStatement
from repositories.rows import from_row
from repositories.windows import reach_cte, reach_low

__all__ = [
    "MESSAGE_COLUMNS",
    "MESSAGE_FROM",
    "MessageRepository",
    "Page",
    "ThreadRow",
    "message_reader",
]


@dataclass(frozen=True, slots=True)
class ThreadRow:
    """A thread: its current channel, kind, parent message, fixed operator and newest
    position (``last_seq``, 0 when empty; read when the row was)."""

    id: str
    channel_id: str
    kind: str
    parent_message_id: str | None
    operator_agent_id: str | None
    last_seq: int = 0


@dataclass(frozen=True, slots=True)
class Page:
    """A page of messages ascending by thread_seq, and whether older ones exist."""

    items: list[StoredMessage]
    has_older: bool


# Read by label (``message_reader``), never by position. Few messages have attachments:
# the EXISTS probe answers most rows without starting an aggregate (0.04 ms less for a
# context read's hundred rows, measured).
MESSAGE_COLUMNS = """
    m.id::text AS id, t.channel_id::text AS channel_id, m.thread_id::text AS thread_id,
    m.thread_seq AS thread_seq, m.author_principal_id::text AS author_id,
    p.kind AS author_kind, p.handle AS author_handle, p.display_name AS author_display_name,
    m.origin AS origin, m.kind AS kind, m.content_md AS content_md,
    m.created_at AS created_at, m.reply_to_message_id::text AS reply_to_message_id,
    t.parent_message_id::text AS parent_message_id, m.client_request_id AS client_request_id,
    m.deleted_at IS NOT NULL AS deleted,
    CASE WHEN EXISTS (SELECT 1 FROM attachments x WHERE x.message_id = m.id)
      THEN (SELECT json_agg(json_strip_nulls(json_build_object(
          'file_id', a.file_id, 'original_name', a.original_name, 'mime_type', a.mime_type,
          'size_bytes', a.size_bytes, 'scan_status', a.scan_status, 'transcript', a.transcript))
          ORDER BY a.position)
        FROM attachments a WHERE a.message_id = m.id)
      ELSE '[]'::json END AS attachments
"""
MESSAGE_FROM = """
    FROM messages m
    JOIN threads t ON t.id = m.thread_id
    JOIN principals p ON p.id = m.author_principal_id
"""

# The reads of listing and posting are prepared statements (ADR 0010): planned once
# per connection instead of on every request.
_BY_IDS = PreparedStatement(
    "messages_by_ids",
    f"SELECT {MESSAGE_COLUMNS} {MESSAGE_FROM} "
    "WHERE m.id = ANY(CAST(CAST(:ids AS text[]) AS uuid[]))",
)

# Newest :limit messages (tombstones included) before :before_seq, plus one to tell
# whether more exist, read within a thread_seq range bounded from :before_seq
# (repositories/windows.py): a page reads at most its own positions whatever the plan.
_PAGE_REACH = reach_cte(
    "page_reach",
    thread="CAST(:thread_id AS uuid)",
    after="CAST(0 AS bigint)",
    before="CAST(:before_seq AS bigint)",
    limit="CAST(:limit AS bigint)",
    counted="true",
)
_PAGE = PreparedStatement(
    "message_page",
    f"""
    WITH RECURSIVE {_PAGE_REACH}
    SELECT * FROM (
      SELECT {MESSAGE_COLUMNS} {MESSAGE_FROM}
      WHERE m.thread_id = CAST(:thread_id AS uuid)
        AND m.thread_seq >= {reach_low("page_reach")}
        AND m.thread_seq < CAST(:before_seq AS bigint)
      ORDER BY m.thread_seq DESC
      LIMIT CAST(:limit AS bigint) + 1
    ) page ORDER BY thread_seq
    """,
)

_THREAD_COLUMNS = (
    "t.id::text AS id, t.channel_id::text AS channel_id, t.kind AS kind, "
    "t.parent_message_id::text AS parent_message_id, "
    "t.operator_agent_id::text AS operator_agent_id, t.last_seq AS last_seq"
)
_MAIN_THREAD = PreparedStatement(
    "main_thread",
    f"SELECT {_THREAD_COLUMNS} FROM threads t "
    "WHERE t.channel_id = CAST(:channel_id AS uuid) AND t.kind = 'main'",
)
_LOCK_MAIN_THREAD = PreparedStatement(
    "lock_main_thread",
    f"SELECT {_THREAD_COLUMNS} FROM threads t "
    "WHERE t.channel_id = CAST(:channel_id AS uuid) AND t.kind = 'main' FOR UPDATE",
)
_THREAD_BY_PARENT = PreparedStatement(
    "thread_by_parent",
    f"SELECT {_THREAD_COLUMNS} FROM threads t WHERE t.parent_message_id = CAST(:parent_id AS uuid)",
)
_LOCK_THREAD = PreparedStatement(
    "lock_thread",
    f"SELECT {_THREAD_COLUMNS} FROM threads t WHERE t.id = CAST(:thread_id AS uuid) FOR UPDATE",
)
_CREATE_THREAD = text(
    f"""
    INSERT INTO threads AS t (channel_id, kind, parent_message_id)
    VALUES (CAST(:channel_id AS uuid), 'thread', CAST(:parent_id AS uuid))
    ON CONFLICT DO NOTHING
    RETURNING {_THREAD_COLUMNS}
    """
)
_BY_REQUEST_ID = PreparedStatement(
    "message_by_request_id",
    "SELECT m.id::text AS id FROM messages m WHERE m.author_principal_id = CAST(:author AS uuid) "
    "AND m.client_request_id = CAST(:client_request_id AS text)",
)
# The next position comes from the thread row (locked by the caller), not from an
# aggregate over the thread's messages; the insert trigger raises last_seq. A repeated
# (author, client_request_id) inserts nothing (no row comes back), so no savepoint is
# needed; the stored message comes back in the same statement.
_INSERT = PreparedStatement(
    "message_insert",
    f"""
    WITH m AS (
      INSERT INTO messages (thread_id, thread_seq, author_principal_id, origin, kind,
                            content_md, reply_to_message_id, client_request_id)
      SELECT t.id, t.last_seq + 1, CAST(:author AS uuid), CAST(:origin AS text), 'text',
             CAST(:content_md AS text), CAST(:reply_to AS uuid),
             CAST(:client_request_id AS text)
      FROM threads t WHERE t.id = CAST(:thread_id AS uuid)
      ON CONFLICT (author_principal_id, client_request_id) DO NOTHING
      RETURNING *
    )
    SELECT {MESSAGE_COLUMNS} {MESSAGE_FROM.replace("FROM messages m", "FROM m")}
    """,
)
_SEQ_OF = PreparedStatement(
    "message_position",
    "SELECT m.thread_id::text AS thread_id, m.thread_seq AS thread_seq "
    "FROM messages m WHERE m.id = CAST(:id AS uuid)",
)
_TOMBSTONE = text(
    "UPDATE messages SET content_md = '', deleted_at = COALESCE(deleted_at, now()) "
    "WHERE id = CAST(:id AS uuid) RETURNING id"
)


def message_reader(keys: Iterable[str]) -> Callable[[Any], StoredMessage]:
    """A reader of :class:`StoredMessage` from the rows of one result with these column
    labels (``result.keys()``), selected with :data:`MESSAGE_COLUMNS`.

    Columns are found by label, once per result; each row is then read by the
    positions found (a hundred rows per context read: a lookup by label per field and
    row cost more than the rest of building the message).

    Raises:
        ValueError: a column of :data:`MESSAGE_COLUMNS` is missing from ``keys``.
    """
    labels = list(keys)
    fields = itemgetter(*(labels.index(name) for name in StoredMessage._fields))
    make = StoredMessage._make

    def read(row: Any) -> StoredMessage:
        return make(fields(row))

    return read


def _thread(row: Any) -> ThreadRow | None:
    if row is None:
        return None
    m = row._mapping
    return from_row(ThreadRow, m, last_seq=int(m["last_seq"]))


class MessageRepository:
    """Reads and writes messages and threads; never commits."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def by_ids(self, ids: list[str]) -> dict[str, StoredMessage]:
        """The messages with these ids (unknown ids are absent), keyed by id."""
        if not ids:
            return {}
        result = _BY_IDS.execute(self._conn, {"ids": ids})
        read = message_reader(result.keys())
        return {message.id: message for message in map(read, result.all())}

    def main_thread(self, channel_id: str) -> ThreadRow | None:
        """The main thread of a channel."""
        return _thread(_MAIN_THREAD.execute(self._conn, {"channel_id": channel_id}).first())

    def thread_by_parent(self, parent_message_id: str) -> ThreadRow | None:
        """The thread whose parent is this message, wherever the thread lives now."""
        return _thread(
            _THREAD_BY_PARENT.execute(self._conn, {"parent_id": parent_message_id}).first()
        )

    def seq_of(self, message_id: str) -> tuple[str, int] | None:
        """(thread id, thread_seq) of a message."""
        row = _SEQ_OF.execute(self._conn, {"id": message_id}).first()
        return None if row is None else (row.thread_id, int(row.thread_seq))

    def page(self, thread: ThreadRow, before_seq: int | None, limit: int) -> Page:
        """The newest ``limit`` messages (tombstones included) before ``before_seq``
        (after the thread's newest when ``None``)."""
        before = thread.last_seq + 1 if before_seq is None else before_seq
        result = _PAGE.execute(
            self._conn, {"thread_id": thread.id, "before_seq": before, "limit": limit}
        )
        read = message_reader(result.keys())
        rows = result.all()
        has_more = len(rows) > limit
        items = [read(row) for row in (rows[1:] if has_more else rows)]
        return Page(items=items, has_older=has_more)

    def lock_main_thread(self, channel_id: str) -> ThreadRow | None:
        """Find and lock a channel's main thread in one statement (see ``lock_thread``)."""
        return _thread(_LOCK_MAIN_THREAD.execute(self._conn, {"channel_id": channel_id}).first())

    def lock_thread(self, thread_id: str) -> ThreadRow | None:
        """Lock a thread row so concurrent posts get consecutive thread_seq values."""
        return _thread(_LOCK_THREAD.execute(self._conn, {"thread_id": thread_id}).first())

    def ensure_thread(self, channel_id: str, parent_message_id: str) -> ThreadRow:
        """The thread under ``parent_message_id``, created in ``channel_id`` when absent."""
        created = self._conn.execute(
            _CREATE_THREAD, {"channel_id": channel_id, "parent_id": parent_message_id}
        ).first()
        thread = _thread(created) or self.thread_by_parent(parent_message_id)
        if thread is None:
            raise RuntimeError("thread neither created nor found")
        return thread

    def by_request_id(self, author_id: str, client_request_id: str) -> str | None:
        """Id of the author's message with this client_request_id, if any."""
        found = _BY_REQUEST_ID.execute(
            self._conn, {"author": author_id, "client_request_id": client_request_id}
        ).scalar_one_or_none()
        return None if found is None else str(found)

    def insert(
        self,
        *,
        thread_id: str,
        author_id: str,
        origin: str,
        content_md: str,
        reply_to_message_id: str | None,
        client_request_id: str | None,
    ) -> StoredMessage | None:
        """Append a message to a thread (locked by the caller); returns it as stored.

        Returns ``None`` when ``(author, client_request_id)`` already exists: the caller
        answers with the first stored message (idempotent post).
        """
        result = _INSERT.execute(
            self._conn,
            {
                "thread_id": thread_id,
                "author": author_id,
                "origin": origin,
                "content_md": content_md,
                "reply_to": reply_to_message_id,
                "client_request_id": client_request_id,
            },
        )
        read = message_reader(result.keys())
        row = result.first()
        return None if row is None else read(row)

    def tombstone(self, message_id: str) -> bool:
        """Empty a message's content and mark it deleted; False when unknown."""
        return self._conn.execute(_TOMBSTONE, {"id": message_id}).first() is not None
