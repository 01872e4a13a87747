"""Edits of the acting-for rules are reported as widenings from the generated corpus alone.

Issue 21: the policy impact diff's generated corpus covers the inputs of a call made
for a bound run's requester (``input.acting_for``, the agents' ``acting_for``
attribute, binding a run to a session), so dropping the requester side of the rule,
the ``run_required`` rule or the live-run condition of a bind is a WIDENING in the
report, with no recorded record in the corpus. Each edit is diffed against the
generated records that involve acting for (a bound run, a run to bind, or the agent
attribute): every other record cannot reach these rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from policydiff.corpus import Record
from policydiff.diff import DiffReport, Group, diff_on
from policydiff.scratch import ScratchOpa
from tests.integration.policydiff.conftest import OPA, Edit

pytestmark = pytest.mark.integration

# The relayed call's requester side: a call the agent may make but the requester may
# not is no longer refused.
DROP_REQUESTER_BRANCH: Edit = (
    "authz/messages/messages.rego",
    """} else := results.acting_for_exceeded if {
	_mode.mode == "run"
	_own.allow == true
	not _requester_allows
}""",
    "}",
)
# The same, one level down: the requester's level is no longer compared.
DROP_REQUESTER_LEVEL: Edit = (
    "authz/actingfor/actingfor.rego",
    """	required := levels.grant_levels[requester_levels[action]]
	levels.level(facts, acting_for.requester, channel_id) >= required
""",
    """	levels.grant_levels[requester_levels[action]]
""",
)
DROP_RUN_REQUIRED: Edit = (
    "authz/messages/messages.rego",
    """} else := results.run_required if {
	_mode.mode == "own"
	actingfor.run_required(input.facts, input.actor, input.action)
}""",
    "}",
)
# A runner may bind a run that has ended.
BIND_ENDED_RUN: Edit = (
    "authz/runners/runners.rego",
    """	binding.run.state in runs.live_states
	binding.run.agent_id == binding.agent_id""",
    """	binding.run.agent_id == binding.agent_id""",
)
# A bound run that has ended still decides the session's calls (mode run).
ENDED_RUN_STILL_DECIDES: Edit = (
    "authz/actingfor/actingfor.rego",
    """mode(acting_for) := {"mode": "run", "run_id": acting_for.run.id} if {
	acting_for.run.state in runs.live_states
} else := {"mode": "own"}""",
    """mode(acting_for) := {"mode": "run", "run_id": acting_for.run.id} if {
	acting_for.run.id
} else := {"mode": "own"}""",
)


def _involves_acting_for(record: Record) -> bool:
    """A bound run, a run to bind, or an agent's acting_for attribute in the input."""
    request: Any = record.input
    if record.entrypoint != "authz/decision" or not isinstance(request, dict):
        return False
    resource = request.get("resource")
    principals = (request.get("facts") or {}).get("principals")
    return (
        "acting_for" in request
        or (isinstance(resource, dict) and "run" in resource)
        or (
            isinstance(principals, dict)
            and any(isinstance(p, dict) and "acting_for" in p for p in principals.values())
        )
    )


@pytest.fixture(scope="module")
def acting_for_records(generated: list[Record]) -> list[Record]:
    """The generated records that involve acting for; none of them recorded."""
    records = [record for record in generated if _involves_acting_for(record)]
    assert records
    assert {record.source for record in records} == {"generated"}
    return records


def _diff(base: ScratchOpa, head_policies: Path, records: list[Record]) -> DiffReport:
    with ScratchOpa(head_policies, binary=OPA, name="head") as head:
        return diff_on(
            records, base, head, base_label="working tree", head_label="edit", examples=1
        )


def _group(report: DiffReport, group_id: str) -> Group:
    (group,) = [group for group in report.groups if group.id == group_id]
    return group


def _words(group: Group) -> set[str]:
    return {word for example in group.examples for word in example.words}


@pytest.mark.parametrize(
    "edit", [DROP_REQUESTER_BRANCH, DROP_REQUESTER_LEVEL], ids=["branch", "level"]
)
def test_dropping_the_requester_side_is_a_widening(
    base_opa: ScratchOpa,
    edited: Callable[..., Path],
    acting_for_records: list[Record],
    edit: Edit,
) -> None:
    report = _diff(base_opa, edited(edit), acting_for_records)

    widening = [group.id for group in report.groups if group.widening]
    assert "authz/decision message.list deny_to_allow" in widening
    assert "authz/decision message.post deny_to_allow" in widening
    for action in ("message.list", "message.post"):
        group = _group(report, f"authz/decision {action} deny_to_allow")
        assert "acting_for_exceeded (403) -> allowed (200)" in group.transitions
        for example in group.examples:
            reduced = example.reduced.input
            assert reduced["acting_for"]["run"]["state"] in ("queued", "running", "waiting_input")
            assert reduced["actor"] == "lotse"


def test_dropping_run_required_is_a_widening(
    base_opa: ScratchOpa, edited: Callable[..., Path], acting_for_records: list[Record]
) -> None:
    report = _diff(base_opa, edited(DROP_RUN_REQUIRED), acting_for_records)

    assert report.group_ids == [
        "authz/decision message.list deny_to_allow",
        "authz/decision message.post deny_to_allow",
        # Without the rule, an agent that may only read is told why it may not post.
        "authz/decision message.post reason_changed",
    ]
    for action in ("message.list", "message.post"):
        group = _group(report, f"authz/decision {action} deny_to_allow")
        assert group.widening
        assert set(group.transitions) == {"run_required (403) -> allowed (200)"}
        assert any(word.endswith(": acting for required") for word in _words(group))
    reason = _group(report, "authz/decision message.post reason_changed")
    assert not reason.widening
    assert set(reason.transitions) == {
        "run_required (403) -> no_grant (403)",
        "run_required (403) -> archived (403)",
    }


def test_binding_an_ended_run_is_a_widening(
    base_opa: ScratchOpa, edited: Callable[..., Path], acting_for_records: list[Record]
) -> None:
    report = _diff(base_opa, edited(BIND_ENDED_RUN), acting_for_records)

    assert report.group_ids == ["authz/decision runner.session.run.bind deny_to_allow"]
    (group,) = report.groups
    assert group.widening
    assert set(group.transitions) == {"not_found (404) -> allowed (200)"}
    states = {
        acting_for_records[index].input["resource"]["run"].get("state", "none")
        for index in group.records
    }
    # Every ended state (and an unknown or missing one) binds now, no live one changed.
    assert {"succeeded", "failed", "cancelled", "unknown", "none"} <= states
    assert not states & {"queued", "running", "waiting_input"}


def test_an_ended_run_that_still_decides_is_a_widening_for_required_agents(
    base_opa: ScratchOpa, edited: Callable[..., Path], acting_for_records: list[Record]
) -> None:
    report = _diff(base_opa, edited(ENDED_RUN_STILL_DECIDES), acting_for_records)

    # An agent that acts only for someone gets the ended run's requester's reach back.
    post = _group(report, "authz/decision message.post deny_to_allow")
    assert post.widening
    assert "run_required (403) -> allowed (200)" in post.transitions
    # The relay now names mode run for an ended run: more bound, not a widening.
    relay = _group(report, "authz/decision runner.comms.relay acting_for_changed")
    assert not relay.widening
    assert set(relay.transitions) == {"allowed (200), mode own -> run"}
    # Calls of other agents are now bounded by the ended run's requester: narrowing.
    assert not _group(report, "authz/decision message.post allow_to_deny").widening
