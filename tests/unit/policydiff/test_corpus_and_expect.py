"""Corpus files, decision-log capture and the --expect gate (policydiff)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policydiff.capture import capture
from policydiff.corpus import CorpusError, Record, dedupe, read_corpus, write_corpus
from policydiff.expect import ExpectError, check, read_expect

DECISION = {"action": "message.list", "actor": "alex", "resource": {"kind": "channel", "id": "c"}}


def test_a_corpus_round_trips_and_keeps_partial_records(tmp_path: Path) -> None:
    records = [
        Record("authz/decision", DECISION, source="x"),
        Record(
            "sessioncontext/resolve", {"actor": "alex"}, partial=True, masked=("/input/surfaces",)
        ),
    ]
    path = tmp_path / "nested" / "corpus.jsonl"

    assert write_corpus(path, records) == 2
    again = read_corpus(path, source="again")

    assert [(r.entrypoint, r.input, r.partial, r.masked) for r in again] == [
        ("authz/decision", DECISION, False, ()),
        ("sessioncontext/resolve", {"actor": "alex"}, True, ("/input/surfaces",)),
    ]
    assert {r.source for r in again} == {"again"}


def test_dedupe_ignores_key_order_and_keeps_the_first() -> None:
    first = Record("authz/decision", {"a": 1, "b": 2}, source="recorded")
    same = Record("authz/decision", {"b": 2, "a": 1}, source="generated")
    other = Record("runcontext/trigger_holders", {"a": 1, "b": 2})
    assert dedupe([first, same, other]) == [first, other]
    assert dedupe([first, same])[0].source == "recorded"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "corpus.jsonl:2: not JSON"),
        ('{"entrypoint": "authz/other", "input": {}}', "unknown entrypoint"),
        ('{"entrypoint": "authz/decision"}', "entrypoint and input"),
        ('{"entrypoint": "authz/decision", "input": {}, "masked": "x"}', "wrong type"),
    ],
)
def test_a_bad_line_is_named_by_file_and_number(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"entrypoint": "authz/decision", "input": {}}\n' + line + "\n")
    with pytest.raises(CorpusError, match=message):
        read_corpus(path)


def test_a_missing_corpus_is_a_corpus_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError):
        read_corpus(tmp_path / "missing.jsonl")


def test_capture_keeps_decisions_of_known_entry_points_and_marks_masked_ones() -> None:
    lines = [
        json.dumps({"level": "info", "msg": "Server started"}),
        "garbage",
        json.dumps({"decision_id": "1", "path": "authz/decision", "input": DECISION, "result": {}}),
        json.dumps(
            {
                "decision_id": "2",
                "path": "sessioncontext/resolve",
                "input": {"actor": "alex"},
                "erased": ["/input/surfaces", "/input/intents", "/result/reachable"],
            }
        ),
        json.dumps({"decision_id": "3", "path": "system/health", "input": {}}),
        json.dumps({"decision_id": "4", "path": "authz/decision", "erased": ["/input"]}),
    ]

    records, stats = capture(lines)

    assert [(r.entrypoint, r.partial, r.masked) for r in records] == [
        ("authz/decision", False, ()),
        ("sessioncontext/resolve", True, ("/input/intents", "/input/surfaces")),
    ]
    assert (stats.records, stats.partial) == (2, 1)
    assert stats.skipped == {"not json": 1, "not a decision": 1, "other path": 1, "no input": 1}


def test_an_expect_file_lists_group_ids(tmp_path: Path) -> None:
    path = tmp_path / "expect.txt"
    path.write_text(
        "# the archive cap is gone (issue 123)\n"
        "authz/decision message.post deny_to_allow\n\n"
        "runcontext/trigger_holders  trigger_holders  trigger_holders_changed  # owners\n"
    )
    assert read_expect(path) == {
        "authz/decision message.post deny_to_allow",
        "runcontext/trigger_holders trigger_holders trigger_holders_changed",
    }


@pytest.mark.parametrize(
    "line",
    [
        "authz/decision message.post",
        "authz/nothing message.post deny_to_allow",
        "authz/decision message.post widened",
    ],
)
def test_a_malformed_expect_line_is_an_error(tmp_path: Path, line: str) -> None:
    path = tmp_path / "expect.txt"
    path.write_text(line + "\n")
    with pytest.raises(ExpectError, match=r"expect\.txt:1"):
        read_expect(path)


def test_the_gate_passes_only_on_exactly_the_listed_groups() -> None:
    assert check({"a b c"}, ["a b c"]).passed
    assert check(set(), []).passed
    extra = check({"a b c"}, ["a b c", "d e f"])
    assert (extra.passed, extra.unexpected, extra.missing) == (False, ("d e f",), ())
    missing = check({"a b c", "d e f"}, ["a b c"])
    assert (missing.passed, missing.unexpected, missing.missing) == (False, (), ("d e f",))
