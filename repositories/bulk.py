"""Bulk writes of planned rows: multi-row INSERT, COPY for big tables, and ANALYZE.

The world loader (:mod:`world`) writes through here and nowhere else. Rows are dicts
keyed by column name, per table of :mod:`repositories.models`, in foreign-key order;
the caller owns the transaction, and :func:`write_rows` runs in a savepoint of it.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Final

import psycopg2
from sqlalchemy import Connection, Table, bindparam, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from repositories.models import Base

__all__ = ["RowConflict", "analyze_tables", "existing_values", "write_rows"]

Rows = Sequence[dict[str, Any]]
# (row id, new value) pairs of one column.
Pairs = Sequence[tuple[uuid.UUID, uuid.UUID]]

# Tables with at least this many rows are written with COPY instead of multi-row
# INSERTs (100,000 messages: about 1 s instead of 15 s).
COPY_THRESHOLD: Final = 1000

_INTEGRITY_KINDS: Final = {
    "23505": "unique violation",
    "23503": "foreign key violation",
    "23514": "check violation",
    "23502": "not-null violation",
}
# COPY's text format escapes backslash, tab, newline and carriage return.
_COPY_ESCAPES: Final = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


class RowConflict(Exception):
    """The database rejected a row; nothing of the batch was written.

    ``kind`` is "unique violation", "foreign key violation", ...; ``constraint`` names
    the constraint. The text holds neither the SQL nor its parameters (content).
    """

    def __init__(self, kind: str, constraint: str) -> None:
        super().__init__(f"{kind} on {constraint}")
        self.kind = kind
        self.constraint = constraint


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


def existing_values(conn: Connection, table: str, column: str, values: Sequence[Any]) -> set[Any]:
    """Which of ``values`` the unique ``table.column`` already holds (one query)."""
    col = _table(table).c[column]
    return set(conn.execute(select(col).where(col.in_(values))).scalars())


def write_rows(
    conn: Connection,
    inserts: Iterable[tuple[str, Rows]],
    updates: Iterable[tuple[str, str, Pairs]] = (),
) -> None:
    """Insert ``inserts`` (table, rows) in order, then set ``updates`` (table, column,
    pairs of row id and value), all in one savepoint of the caller's transaction.

    Raises:
        RowConflict: a row violates a constraint; the savepoint was rolled back, so the
            caller's transaction is still usable.
    """
    try:
        with conn.begin_nested():
            for table_name, rows in inserts:
                if len(rows) >= COPY_THRESHOLD and _copy(conn, table_name, rows):
                    continue
                conn.execute(insert(_table(table_name)), list(rows))
            for table_name, column, pairs in updates:
                table = _table(table_name)
                statement = (
                    update(table)
                    .where(table.c.id == bindparam("row_id"))
                    .values({column: bindparam("new_value")})
                )
                conn.execute(statement, [{"row_id": row, "new_value": new} for row, new in pairs])
    except (IntegrityError, psycopg2.IntegrityError) as exc:
        # "from None": the driver's message quotes the SQL parameters, i.e. content.
        raise _conflict(exc) from None


def analyze_tables(conn: Connection, tables: Iterable[str]) -> None:
    """``ANALYZE`` these tables of the schema, so the planner knows their new size.

    Without statistics the planner guesses, and a prepared statement keeps the plan
    it guessed (ADR 0010): after a bulk load, analyse what was loaded. Run outside the
    loading transaction, after its commit, so other sessions see the statistics of
    committed rows.
    """
    names = [_table(name).name for name in tables]
    if names:
        conn.execute(text("ANALYZE " + ", ".join(f'"{name}"' for name in names)))


def _conflict(exc: IntegrityError | psycopg2.IntegrityError) -> RowConflict:
    orig = exc.orig if isinstance(exc, IntegrityError) else exc
    diag = getattr(orig, "diag", None)
    constraint = getattr(diag, "constraint_name", None) or "an unnamed constraint"
    kind = _INTEGRITY_KINDS.get(str(getattr(orig, "pgcode", "")), "integrity error")
    return RowConflict(kind, constraint)


def _copy_value(value: Any) -> str:
    """One value in COPY's text format (NULL is ``\\N``)."""
    if type(value) is str:
        return value.translate(_COPY_ESCAPES)
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value).translate(_COPY_ESCAPES)


def _copy(conn: Connection, table_name: str, rows: Rows) -> bool:
    """Write ``rows`` with ``COPY ... FROM STDIN``; False when they do not fit (nothing
    written then: the rows must share one set of columns of scalar values).

    Raises:
        psycopg2.IntegrityError: a row violates a constraint.
    """
    columns = list(rows[0])
    if any(list(row) != columns for row in rows):
        return False
    scalar = (str, int, bool, datetime, uuid.UUID, type(None))
    if any(not isinstance(value, scalar) for row in rows for value in row.values()):
        return False
    buffer = io.StringIO("".join("\t".join(map(_copy_value, row.values())) + "\n" for row in rows))
    table = _table(table_name)
    names = ", ".join(f'"{table.c[column].name}"' for column in columns)
    raw = conn.connection.dbapi_connection
    assert raw is not None
    cursor: Any = raw.cursor()  # psycopg2's cursor: copy_expert is not in the DB-API
    try:
        cursor.copy_expert(f'COPY "{table.name}" ({names}) FROM STDIN', buffer)
    finally:
        cursor.close()
    return True
