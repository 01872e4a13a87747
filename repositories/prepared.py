"""Server-side prepared statements for the hot read path, with psycopg2.

psycopg2 sends every statement as text, so PostgreSQL plans it on every execution.
For the statements of a context read, planning cost more than executing (measured in
``docs/benchmarks.md``: about 3 ms of planning per request against 2 ms of execution).
A :class:`PreparedStatement` is ``PREPARE``d once per database connection (tracked in
the pooled connection's ``info``, which a replaced connection does not inherit) and
then run with ``EXECUTE``, so PostgreSQL reuses the plan; see ADR 0010.

Statements are written with ``:name`` parameters (lower case) like every other
statement here; they become ``$1, $2, ...`` in the order of first appearance, and
PostgreSQL infers their types from the casts around them. Columns are still read by
label from the result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, CursorResult

__all__ = ["PreparedStatement"]

_PARAMETER = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)\b")
_INFO_KEY = "prepared_statements"


class PreparedStatement:
    """One statement, prepared on first use per connection and executed by name.

    Args:
        name: the SQL name of the prepared statement (unique per process).
        sql: the statement with ``:name`` parameters.

    Example::

        by_hash = PreparedStatement("token_by_hash", "SELECT ... WHERE token_hash = :h")
        row = by_hash.execute(conn, {"h": digest}).first()
    """

    def __init__(self, name: str, sql: str) -> None:
        if "%" in sql:
            # Kept out so that no driver-side interpolation can touch the statement.
            raise ValueError("a prepared statement cannot contain '%'")
        self.name = name
        self.parameters: list[str] = []
        for match in _PARAMETER.finditer(sql):
            if match.group(1) not in self.parameters:
                self.parameters.append(match.group(1))
        self._prepare = f"PREPARE {name} AS " + _PARAMETER.sub(
            lambda m: f"${self.parameters.index(m.group(1)) + 1}", sql
        )
        arguments = ", ".join(f"%({parameter})s" for parameter in self.parameters)
        self._execute = f"EXECUTE {name}({arguments})" if arguments else f"EXECUTE {name}"

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> CursorResult[Any]:
        """Run the statement on ``conn``, preparing it there first if needed.

        Raises:
            KeyError: a parameter of the statement is missing from ``params``.
            sqlalchemy.exc.DBAPIError: as any statement does.
        """
        values = {parameter: params[parameter] for parameter in self.parameters}
        prepared: set[str] = conn.connection.info.setdefault(_INFO_KEY, set())
        if self.name not in prepared:
            conn.exec_driver_sql(self._prepare)
            prepared.add(self.name)
        return conn.exec_driver_sql(self._execute, values)
