"""The recorded and captured corpus parts, from a running service and its OPA."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from app.policy.recorder import MASKED_INPUT_POINTERS
from policydiff.capture import capture
from policydiff.corpus import Record, read_corpus
from policydiff.diff import diff_on
from policydiff.scratch import ScratchOpa
from tests.integration.policydiff.conftest import OPA, POLICIES
from tests.support.services import OpaServer
from tests.support.world import demo_world, load

pytestmark = pytest.mark.integration

RESOLVE = {
    "context": {
        "version": 1,
        "providers": {"surface": {"available_surfaces": [{"surface_key": "matters.list"}]}},
    },
    "intents": [
        {"name": "navigate_to", "plane": "client", "params": {"surface_key": "matters.list"}}
    ],
}


def _replay(base: ScratchOpa, records: list[Record]) -> Any:
    with ScratchOpa(POLICIES, binary=OPA, name="head") as head:
        return diff_on(records, base, head, base_label="tree", head_label="tree")


def test_the_recorder_masks_exactly_what_the_decision_log_masks(opa_server: OpaServer) -> None:
    mask = requests.get(f"{opa_server.url}/v1/data/system/log/mask", timeout=10).json()["result"]
    assert sorted(pointer for pointer in mask if pointer.startswith("/input/")) == sorted(
        MASKED_INPUT_POINTERS
    )


@pytest.fixture
def demo_service(
    make_service: Callable[..., Any], database_url: str, tmp_path: Path
) -> tuple[Any, dict[str, str], Path]:
    """The demo world served with the recorder on; returns service, ids and corpus path."""
    ids = load(database_url, demo_world())
    corpus = tmp_path / "recorded.jsonl"
    return make_service(**{"policy.corpus_file": str(corpus)}), ids, corpus


def test_a_service_records_every_input_it_sends_and_the_records_replay(
    demo_service: tuple[Any, dict[str, str], Path], base_opa: ScratchOpa
) -> None:
    service, ids, corpus = demo_service
    general = ids["support/general"]
    assert service.client("tok-sam").get(f"/api/v1/channels/{general}/messages").status_code == 200
    resolved = service.client("tok-alex").post(
        "/api/v1/agents/session-context/resolve", json=RESOLVE
    )
    assert resolved.status_code == 200
    assert service.client().get("/readyz").status_code == 200

    records = read_corpus(corpus)

    actions = [record.action for record in records]
    assert "message.list" in actions
    assert "health.ready" in actions
    (resolution,) = [r for r in records if r.entrypoint == "sessioncontext/resolve"]
    assert resolution.partial
    assert resolution.masked == ("/input/intents", "/input/surfaces")
    assert "matters.list" not in corpus.read_text(encoding="utf-8")
    report = _replay(base_opa, records)
    assert (report.groups, report.unanswered) == ([], 0)


def test_opa_decision_logs_become_captured_records_that_replay(
    demo_service: tuple[Any, dict[str, str], Path], opa_server: OpaServer, base_opa: ScratchOpa
) -> None:
    service, _ids, _corpus = demo_service
    resolved = service.client("tok-alex").post(
        "/api/v1/agents/session-context/resolve", json=RESOLVE
    )
    assert resolved.status_code == 200

    records, stats = capture(opa_server.read_log().splitlines())

    assert stats.records == len(records) > 0
    assert stats.skipped["not json"] == 0
    partial = [r for r in records if r.entrypoint == "sessioncontext/resolve"]
    assert partial
    assert all(r.partial and "/input/surfaces" in r.masked for r in partial)
    assert all("surfaces" not in r.input and "intents" not in r.input for r in partial)
    # The session's OPA log holds every test's decisions so far; replay those of the
    # entry points that always answer: the decisions and the resolutions.
    replayed = [r for r in records if r.entrypoint in ("authz/decision", "sessioncontext/resolve")][
        -500:
    ]
    report = _replay(base_opa, replayed)
    assert (report.groups, report.unanswered) == ([], 0)
    assert report.partial >= 1


def test_the_generator_covers_every_action_the_policies_know(
    opa_server: OpaServer, generated: list[Record]
) -> None:
    known = requests.get(f"{opa_server.url}/v1/data/authz/actions", timeout=10).json()["result"]
    generated_actions = {
        record.action for record in generated if record.entrypoint == "authz/decision"
    }
    assert len(known) >= 30
    # Every action the policies know is generated; a new one needs a family (or is
    # generated as an instance-wide action), never a list of exceptions here.
    assert set(known) <= generated_actions
