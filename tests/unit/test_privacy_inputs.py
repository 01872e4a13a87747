"""The privacy inputs built from the domain's ceilings (``app/policy/inputs.py``).

The bytes are pinned: the recorded policy corpus and the policy impact diff compare
inputs as sent, so a field that moves or appears would read as a new input.
"""

from __future__ import annotations

import orjson

from app.domain.privacy import Ceiling
from app.policy.inputs import ceiling_facts, privacy_attempt_input, privacy_write_input

_CEILINGS = {
    "audit_content": Ceiling("metadata", True),
    "background_answer": Ceiling("full", False),
}


def test_a_run_never_reconciled_without_a_task_sends_an_empty_run() -> None:
    request = privacy_write_input({}, task_key=None, task_policy=None)

    assert orjson.dumps(request) == b'{"run":{}}'


def test_stored_ceilings_and_the_task_are_sent_in_the_contracts_order() -> None:
    request = privacy_write_input(
        _CEILINGS, task_key="triage", task_policy={"background_answer": "none"}
    )

    assert orjson.dumps(request) == (
        b'{"run":{"ceilings":{"audit_content":{"level":"metadata","explicit":true},'
        b'"background_answer":{"level":"full","explicit":false}}},'
        b'"task":{"key":"triage","policy":{"background_answer":"none"}}}'
    )


def test_a_task_without_a_policy_sends_its_key_only() -> None:
    request = privacy_write_input({}, task_key="triage", task_policy=None)

    assert orjson.dumps(request) == b'{"run":{},"task":{"key":"triage"}}'


def test_an_attempt_adds_the_provider_last_and_its_policy_only_when_known() -> None:
    unknown = privacy_attempt_input(
        {}, task_key=None, task_policy=None, provider_id="openai-eu", provider_policy=None
    )
    known = privacy_attempt_input(
        _CEILINGS,
        task_key="triage",
        task_policy=None,
        provider_id="openai-eu",
        provider_policy={"audit_content": "metadata"},
    )

    assert orjson.dumps(unknown) == b'{"run":{},"provider":{"id":"openai-eu"}}'
    assert orjson.dumps(known).endswith(
        b'"task":{"key":"triage"},"provider":{"id":"openai-eu","policy":{"audit_content":"metadata"}}}'
    )


def test_a_stored_level_off_the_scale_is_sent_as_stored() -> None:
    # The policy answers "unreadable" for it; Python never judges a level.
    assert ceiling_facts({"audit_content": Ceiling("confidential", True)}) == {
        "audit_content": {"level": "confidential", "explicit": True}
    }
