"""The pure side of the privacy guard: identifiers, retention of payloads, ETags."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.privacy import (
    RETENTION_MARKER,
    STEP_PARTS,
    etag,
    is_attempt_id,
    is_provider_id,
    is_task_key,
    parse_if_match,
    retain,
)


@pytest.mark.parametrize("value", ["openai-eu", "anthropic", "azure.openai_we", "0", "a" * 64])
def test_well_formed_provider_ids(value: str) -> None:
    assert is_provider_id(value)
    assert is_task_key(value)


@pytest.mark.parametrize(
    "value",
    [
        "https://api.example.com/v1/chat",
        "api.example.com:443",
        "models/gpt",
        "open ai",
        "tab\there",
        "OpenAI",
        "",
        "-dash-first",
        ".dot-first",
        "a" * 65,
        "openai\n",
        "openai\r\n",
        "\nopenai",
        "openai\u00e9",
    ],
)
def test_a_url_a_path_or_free_text_is_no_provider_id(value: str) -> None:
    assert not is_provider_id(value)
    assert not is_task_key(value)


def test_attempt_ids_allow_uuids_and_ulids_but_no_separators() -> None:
    assert is_attempt_id("3f1c2d9e-6b7a-4c1d-9e8f-0a1b2c3d4e5f")
    assert is_attempt_id("01HZX3K6Q7R8S9T0V1W2X3Y4Z5")
    assert is_attempt_id("x" * 128)
    for bad in ("", "a b", "a/b", "a:b", "x" * 129, "retry\n", "_first"):
        assert not is_attempt_id(bad), bad


def test_retain_keeps_the_named_parts_and_marks_the_level() -> None:
    payload = {"kind": "chat_request", "metadata": {"model": "m"}, "content": "secret"}

    assert retain(payload, {"kind", "metadata"}, "metadata") == {
        "kind": "chat_request",
        "metadata": {"model": "m"},
        RETENTION_MARKER: "metadata",
    }
    assert retain(payload, {"kind"}, "none") == {"kind": "chat_request", RETENTION_MARKER: "none"}
    assert payload["content"] == "secret"  # the input is not changed


def test_retain_drops_an_old_marker_it_is_not_told_to_keep() -> None:
    filtered = retain({"kind": "note", RETENTION_MARKER: "full"}, {"kind"}, "none")

    assert filtered == {"kind": "note", RETENTION_MARKER: "none"}


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
_PAYLOADS = st.dictionaries(
    st.sampled_from([*STEP_PARTS, "extra", RETENTION_MARKER]), _VALUES, max_size=5
)
_PARTS = st.frozensets(st.sampled_from(STEP_PARTS))
_LEVELS = st.sampled_from(["none", "metadata", "full"])


@given(_PAYLOADS, _PARTS, _LEVELS)
def test_retain_never_adds_anything_but_the_marker(
    payload: dict[str, Any], parts: frozenset[str], level: str
) -> None:
    filtered = retain(payload, parts, level)

    assert filtered[RETENTION_MARKER] == level
    assert set(filtered) - {RETENTION_MARKER} <= parts & set(payload)
    for key in set(filtered) - {RETENTION_MARKER}:
        assert filtered[key] == payload[key]


@given(_PAYLOADS, _PARTS, _PARTS, _LEVELS, _LEVELS)
def test_refiltering_equals_filtering_once_with_the_common_parts(
    payload: dict[str, Any],
    first: frozenset[str],
    second: frozenset[str],
    level_one: str,
    level_two: str,
) -> None:
    twice = retain(retain(payload, first, level_one), second, level_two)

    assert twice == retain(payload, first & second, level_two)


@given(_PAYLOADS, _PARTS, _LEVELS)
def test_retain_is_idempotent(payload: dict[str, Any], parts: frozenset[str], level: str) -> None:
    once = retain(payload, parts, level)

    assert retain(once, parts, level) == once


@given(st.integers(min_value=0, max_value=10**18 - 1))
def test_an_etag_parses_back_to_its_version(version: int) -> None:
    assert parse_if_match(etag(version)) == version


@pytest.mark.parametrize(
    "value", ["*", 'W/"3"', "3", '"3", "4"', '"-3"', '"3.0"', '""', '"1' + "0" * 18 + '"']
)
def test_if_match_must_be_one_strong_etag_of_digits(value: str) -> None:
    assert parse_if_match(value) is None
