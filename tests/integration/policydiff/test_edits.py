"""Known policy edits are each reported in the right group with a minimal example.

One base OPA serves the working tree for every test; each edit runs its own head OPA
on an edited copy and replays a small corpus targeted at it (issue 11, item 6).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from policydiff.corpus import Record
from policydiff.diff import DiffReport, Group, diff_on
from policydiff.scratch import ScratchOpa
from tests.integration.policydiff.conftest import OPA, Edit, select

pytestmark = pytest.mark.integration

DROP_ARCHIVE_CAP: Edit = (
    "authz/levels/levels.rego",
    """_capped(facts, channel, lvl) := min([lvl, read]) if {
	_archived(facts, channel)
} else := lvl""",
    "_capped(_, _, lvl) := lvl",
)
SPACE_GRANTS_REACH_DMS: Edit = (
    "authz/levels/levels.rego",
    """	target.id == channel.space_id
	channel.kind != "dm"
""",
    """	target.id == channel.space_id
""",
)
EXPIRED_GRANTS_COUNT: Edit = (
    "authz/levels/levels.rego",
    "_unexpired(grant, now) if time.parse_rfc3339_ns(grant.expires_at) > "
    "time.parse_rfc3339_ns(now)",
    "_unexpired(grant, _) if time.parse_rfc3339_ns(grant.expires_at)",
)
APPS_HOLD_TRIGGER: Edit = (
    "runcontext/runcontext.rego",
    '	facts.principals[principal_id].kind == "user"\n',
    '	facts.principals[principal_id].kind in {"user", "app"}\n',
)


def _diff(base: ScratchOpa, head_policies: Path, records: list[Record]) -> DiffReport:
    with ScratchOpa(head_policies, binary=OPA, name="head") as head:
        return diff_on(records, base, head, base_label="working tree", head_label="edit")


def _group(report: DiffReport, group_id: str) -> Group:
    (group,) = [group for group in report.groups if group.id == group_id]
    return group


def _facts(group: Group) -> list[dict[str, object]]:
    return [{fact.path: fact.value for fact in example.reduced.facts} for example in group.examples]


def test_dropping_the_archive_cap_lets_people_post_in_archived_channels(
    base_opa: ScratchOpa, edited: Callable[..., Path], generated: list[Record]
) -> None:
    records = select(generated, "message.post", "trigger holders", status="active")

    report = _diff(base_opa, edited(DROP_ARCHIVE_CAP), records)

    assert report.group_ids == [
        "authz/decision message.post deny_to_allow",
        "runcontext/trigger_holders trigger_holders trigger_holders_changed",
    ]
    post = _group(report, "authz/decision message.post deny_to_allow")
    assert post.widening
    assert set(post.transitions) == {"archived (403) -> allowed (200)"}
    for example in post.examples:
        facts = {fact.path: fact.value for fact in example.reduced.facts}
        assert (
            facts.get("facts.channels.general.archived") is True
            or facts.get("facts.spaces.support.archived") is True
        )
        assert len(example.reduced.input["facts"]["grants"]) <= 1  # reduced
    holders = _group(report, "runcontext/trigger_holders trigger_holders trigger_holders_changed")
    assert holders.widening
    assert set(holders.transitions) == {"holders gained"}


def test_space_grants_reaching_dms_open_dms_to_readers_of_the_space(
    base_opa: ScratchOpa, edited: Callable[..., Path], generated: list[Record]
) -> None:
    records = select(generated, "message.list", "trigger holders", status="active", via="space")

    report = _diff(base_opa, edited(SPACE_GRANTS_REACH_DMS), records)

    assert report.group_ids == [
        "authz/decision message.list deny_to_allow",
        "runcontext/trigger_holders trigger_holders trigger_holders_changed",
    ]
    listing = _group(report, "authz/decision message.list deny_to_allow")
    assert listing.widening
    assert set(listing.transitions) == {"not_found (404) -> allowed (200)"}
    for facts in _facts(listing):
        assert facts["facts.channels.general.kind"] == "dm"
        assert facts["facts.grants[0].target.kind"] == "space"
    example = listing.examples[0].reduced.input
    assert example["facts"]["grants"] == [
        {
            "subject": {"kind": "principal", "id": example["actor"]},
            "target": {"kind": "space", "id": "support"},
            "level": example["facts"]["grants"][0]["level"],
        }
    ]


def test_an_expired_grant_that_counts_is_reported_with_its_expiry(
    base_opa: ScratchOpa, edited: Callable[..., Path], generated: list[Record]
) -> None:
    records = select(generated, "message.read", status="active", channel="regular")

    report = _diff(base_opa, edited(EXPIRED_GRANTS_COUNT), records)

    assert report.group_ids == ["authz/decision message.read deny_to_allow"]
    (group,) = report.groups
    assert group.widening
    assert len(group.records) == sum(
        1
        for r in records
        if r.label is not None
        and r.label["facts"]["expiry"] == "past"
        and r.label["facts"]["member"] == "no"
        and r.label["facts"]["actor"] != "owner"
    )
    for facts in _facts(group):
        assert facts["facts.grants[0].expires_at"] == "2026-11-30T12:00:00Z"


def test_apps_holding_trigger_widen_trigger_holders_and_trust(
    base_opa: ScratchOpa, edited: Callable[..., Path], generated: list[Record]
) -> None:
    records = select(generated, "trigger holders", candidate="app") + select(
        generated, "run context: role and trust", author="app"
    )

    report = _diff(base_opa, edited(APPS_HOLD_TRIGGER), records)

    assert report.group_ids == [
        "runcontext/evaluate classes trust_or_role_changed",
        "runcontext/evaluate trigger_holders trigger_holders_changed",
        "runcontext/trigger_holders trigger_holders trigger_holders_changed",
    ]
    assert all(group.widening for group in report.groups)
    trust = _group(report, "runcontext/evaluate classes trust_or_role_changed")
    assert set(trust.transitions) == {"origin human: user/unverified -> user/authorized"}
    holders = _group(report, "runcontext/trigger_holders trigger_holders trigger_holders_changed")
    for facts in _facts(holders):
        assert facts["facts.principals.importer.kind"] == "app"
    reduced = holders.examples[0].reduced.input
    assert reduced["candidates"] == ["importer"]
    assert list(reduced["facts"]["principals"]) == ["importer"]
