"""The corpus recorder of the policy gateway (issue 11): what it writes, and how."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from app.config import load_settings
from app.opa_client import OpaUnavailable
from app.policy import PolicyGateway
from app.policy.recorder import (
    MASKED_INPUT_POINTERS,
    CorpusRecorder,
    RecordingTransport,
    recording,
)
from tests.unit.fakes import FakeTransport

ALLOW = {"allow": True, "reason": "allowed", "status": 200}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _decision_input() -> dict[str, Any]:
    return {
        "action": "message.list",
        "actor": "alex",
        "resource": {"kind": "channel", "id": "general"},
        "facts": {
            "now": "2026-12-01T12:00:00Z",
            "principals": {},
            "channels": {},
            "spaces": {},
            "grants": [],
        },
    }


def test_the_gateway_records_every_input_it_sends_before_sending_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "recorded.jsonl"
    transport = FakeTransport(default=ALLOW)
    gateway = PolicyGateway(recording(transport, str(corpus)))

    gateway.decide(_decision_input())  # type: ignore[arg-type]
    gateway.decide({**_decision_input(), "action": "message.post"})  # type: ignore[typeddict-item]

    assert _lines(corpus) == [
        {"entrypoint": "authz/decision", "input": _decision_input()},
        {"entrypoint": "authz/decision", "input": {**_decision_input(), "action": "message.post"}},
    ]
    assert gateway.calls == 2
    assert [path for path, _ in transport.asked] == ["authz/decision", "authz/decision"]


def test_an_input_is_recorded_even_when_opa_then_fails(tmp_path: Path) -> None:
    corpus = tmp_path / "recorded.jsonl"
    gateway = PolicyGateway(recording(FakeTransport(default=OpaUnavailable("down")), str(corpus)))

    with pytest.raises(OpaUnavailable):
        gateway.decide(_decision_input())  # type: ignore[arg-type]

    assert len(_lines(corpus)) == 1


def test_client_supplied_bags_are_left_out_and_the_record_marked_partial(tmp_path: Path) -> None:
    corpus = tmp_path / "recorded.jsonl"
    recorder = CorpusRecorder(corpus)
    request = {
        **_decision_input(),
        "action": "session_context.resolve",
        "surfaces": ["matters.list"],
        "intents": [{"name": "navigate_to", "plane": "client", "target": "matters.list"}],
    }

    recorder.record("sessioncontext/resolve", request)

    (line,) = _lines(corpus)
    assert line["partial"] is True
    assert line["masked"] == ["/input/intents", "/input/surfaces"]
    assert "surfaces" not in line["input"]
    assert "intents" not in line["input"]
    assert "matters.list" not in corpus.read_text(encoding="utf-8")
    assert line["input"]["facts"] == request["facts"]
    assert "surfaces" in request  # the input sent to OPA is untouched


def test_the_masked_pointers_are_top_level_input_fields() -> None:
    assert all(pointer.count("/") == 2 for pointer in MASKED_INPUT_POINTERS)
    assert all(pointer.startswith("/input/") for pointer in MASKED_INPUT_POINTERS)


def test_without_a_corpus_file_the_transport_is_not_wrapped() -> None:
    transport = FakeTransport(default=ALLOW)
    assert recording(transport, "") is transport
    assert isinstance(recording(transport, "/tmp/x.jsonl"), RecordingTransport)  # noqa: S108


def test_recording_is_off_by_default() -> None:
    assert load_settings(environ={}).text("policy.corpus_file") == ""


def test_threads_and_recorders_on_one_file_append_whole_lines(tmp_path: Path) -> None:
    corpus = tmp_path / "recorded.jsonl"
    recorders = [CorpusRecorder(corpus) for _ in range(4)]
    big = {"facts": {"grants": [{"level": "read", "n": n} for n in range(300)]}}

    def work(recorder: CorpusRecorder, worker: int) -> None:
        for n in range(50):
            recorder.record("authz/decision", {**big, "worker": worker, "n": n})

    threads = [threading.Thread(target=work, args=(r, i)) for i, r in enumerate(recorders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    lines = _lines(corpus)  # every line parses: no interleaving
    assert len(lines) == 200
    assert {(line["input"]["worker"], line["input"]["n"]) for line in lines} == {
        (worker, n) for worker in range(4) for n in range(50)
    }


def test_a_corpus_that_cannot_be_written_fails_the_call(tmp_path: Path) -> None:
    corpus = tmp_path / "recorded.jsonl"
    transport = FakeTransport(default=ALLOW)
    gateway = PolicyGateway(recording(transport, str(corpus)))
    corpus.mkdir()  # a folder where the file should be

    with pytest.raises(OSError):  # noqa: PT011
        gateway.decide(_decision_input())  # type: ignore[arg-type]
    assert transport.asked == []  # nothing is sent unrecorded
