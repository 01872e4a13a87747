"""Prepared statements: ``:name`` parameters become positional, once per connection."""

from __future__ import annotations

from typing import Any

import pytest

from repositories.prepared import PreparedStatement


class FakeDbapiConnection:
    def __init__(self) -> None:
        self.info: dict[str, Any] = {}


class FakeConnection:
    """Records what is sent; ``connection.info`` survives like a pooled connection's."""

    def __init__(self, pooled: FakeDbapiConnection | None = None) -> None:
        self.connection = pooled or FakeDbapiConnection()
        self.sent: list[tuple[str, dict[str, Any] | None]] = []

    def exec_driver_sql(self, sql: str, params: dict[str, Any] | None = None) -> str:
        self.sent.append((sql, params))
        return "result"


def test_named_parameters_become_positional_in_order_of_first_appearance() -> None:
    statement = PreparedStatement(
        "probe", "SELECT CAST(:b AS int), :a::text, CAST(:b AS int) + 1, 'HH24:MI'"
    )

    assert statement.parameters == ["b", "a"]
    conn = FakeConnection()
    statement.execute(conn, {"a": "x", "b": 2, "unused": 3})  # type: ignore[arg-type]

    assert conn.sent == [
        ("PREPARE probe AS SELECT CAST($1 AS int), $2::text, CAST($1 AS int) + 1, 'HH24:MI'", None),
        ("EXECUTE probe(%(b)s, %(a)s)", {"b": 2, "a": "x"}),
    ]


def test_a_connection_prepares_once_and_a_new_connection_prepares_again() -> None:
    statement = PreparedStatement("once", "SELECT :x")
    pooled = FakeDbapiConnection()

    first = FakeConnection(pooled)
    statement.execute(first, {"x": 1})  # type: ignore[arg-type]
    statement.execute(first, {"x": 2})  # type: ignore[arg-type]
    again = FakeConnection(pooled)
    statement.execute(again, {"x": 3})  # type: ignore[arg-type]
    fresh = FakeConnection()
    statement.execute(fresh, {"x": 4})  # type: ignore[arg-type]

    assert [sql.split()[0] for sql, _ in first.sent] == ["PREPARE", "EXECUTE", "EXECUTE"]
    assert [sql.split()[0] for sql, _ in again.sent] == ["EXECUTE"]
    assert [sql.split()[0] for sql, _ in fresh.sent] == ["PREPARE", "EXECUTE"]


def test_a_statement_without_parameters_is_executed_without_an_argument_list() -> None:
    conn = FakeConnection()
    PreparedStatement("bare", "SELECT 1").execute(conn, {})  # type: ignore[arg-type]

    assert conn.sent[-1] == ("EXECUTE bare", {})


def test_a_missing_parameter_is_a_key_error_before_anything_is_sent() -> None:
    conn = FakeConnection()

    with pytest.raises(KeyError):
        PreparedStatement("missing", "SELECT :x").execute(conn, {})  # type: ignore[arg-type]
    assert conn.sent == []


def test_a_percent_sign_is_refused_so_no_driver_interpolation_can_touch_it() -> None:
    with pytest.raises(ValueError, match="%"):
        PreparedStatement("pct", "SELECT 'a%b'")
