"""The JSON encoder never emits JSON null and writes RFC 3339 UTC times with Z."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

from app.http.encoding import drop_nulls, dumps


def test_none_members_are_dropped_at_every_depth() -> None:
    value = {"a": None, "b": {"c": None, "d": 1}, "e": [{"f": None, "g": "x"}], "h": 0}

    assert drop_nulls(value) == {"b": {"d": 1}, "e": [{"g": "x"}], "h": 0}


def test_falsy_values_that_are_not_none_are_kept() -> None:
    value = {"zero": 0, "false": False, "empty": "", "list": [], "object": {}}

    assert drop_nulls(value) == value


def test_drop_nulls_does_not_change_its_argument() -> None:
    value = {"a": None, "b": {"c": None}}

    drop_nulls(value)

    assert value == {"a": None, "b": {"c": None}}


@pytest.mark.parametrize(
    "value",
    [
        [None],
        [1, None, 2],
        {"items": [{"id": 1}, None]},
        {"a": {"b": [[None]]}},
        (None,),
    ],
)
def test_none_inside_a_list_raises(value: object) -> None:
    with pytest.raises(ValueError, match="null inside a list"):
        drop_nulls(value)
    with pytest.raises(ValueError, match="null inside a list"):
        dumps(value)


def test_a_top_level_none_is_refused_or_never_written_as_null() -> None:
    try:
        encoded = dumps(None)
    except (TypeError, ValueError):
        return
    assert encoded != b"null"


def test_dumps_writes_no_null_anywhere() -> None:
    encoded = dumps({"a": None, "b": [{"c": None, "d": True}], "e": {"f": None}})

    assert b"null" not in encoded
    assert json.loads(encoded) == {"b": [{"d": True}], "e": {}}


def test_an_aware_utc_datetime_is_written_with_z() -> None:
    moment = dt.datetime(2026, 11, 29, 12, 0, 5, 123456, tzinfo=dt.UTC)

    assert dumps({"at": moment}) == b'{"at":"2026-11-29T12:00:05.123456Z"}'


def test_a_naive_datetime_is_taken_as_utc() -> None:
    assert dumps([dt.datetime(2026, 1, 2, 3, 4, 5)]) == b'["2026-01-02T03:04:05Z"]'


def test_a_datetime_with_another_offset_stays_a_valid_rfc3339_time() -> None:
    moment = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))

    text = json.loads(dumps({"at": moment}))["at"]

    assert dt.datetime.fromisoformat(text) == moment
    assert text.endswith("+02:00")


def test_uuids_are_written_as_strings() -> None:
    value = uuid.UUID("12345678-1234-5678-1234-567812345678")

    assert dumps({"id": value}) == b'{"id":"12345678-1234-5678-1234-567812345678"}'


@pytest.mark.parametrize("value", [{1, 2}, Decimal("1.5"), b"bytes", object()])
def test_an_unsupported_type_raises(value: object) -> None:
    with pytest.raises(TypeError, match="cannot encode"):
        dumps({"x": value})


def test_the_output_is_compact_utf8_without_ascii_escapes() -> None:
    encoded = dumps({"name": "Jürgen ✓", "n": [1, 2]})

    assert encoded == '{"name":"Jürgen ✓","n":[1,2]}'.encode()
