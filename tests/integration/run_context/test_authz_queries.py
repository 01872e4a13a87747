"""queryTriggerHolders and explainDecision: the same rules the run context relies on."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.run_context_world import (
    CAMPAIGNS,
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_thread,
    audit_rows,
    base_world,
    dumps,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

HOLDERS = "/api/v1/authz/trigger-holders"
EXPLAIN = "/api/v1/authz/explain"
CONTENT = "explain-content-never-in-input-3a9c"


def _world() -> dict[str, Any]:
    world = base_world()
    world["groups"] = [{"key": "oncall", "members": ["writer"]}]
    add_main_messages(world, GENERAL, msg("p1", "alex", CONTENT))
    add_thread(world, "t1", parent="p1", messages=[msg("trig", "alex", f"@lotse {CONTENT}")])
    add_run(world, "r1", "t1", "trig")
    return world


def _candidates(rc: RunContextWorld, unknown: str) -> list[str]:
    return [
        rc.id(h) for h in ("writer", "sam", "lotse", "robin", "importer", "texter", "alex", "sam")
    ] + [unknown]


def _holders(rc: RunContextWorld, as_: str, principal_ids: list[str], path: str = GENERAL) -> Any:
    return rc.client(as_).post(
        HOLDERS, json={"channel_id": rc.id(path), "principal_ids": principal_ids}
    )


@pytest.mark.parametrize("asker", ["robin", "importer"])
def test_trigger_holders_are_the_active_people_with_trigger_ascending_and_unique(
    start_world: Start,
    asker: str,
) -> None:
    rc = start_world(_world())

    response = _holders(rc, asker, _candidates(rc, str(uuid.uuid4())))

    assert response.status_code == 200
    body = response.json()
    assert body["channel_id"] == rc.id(GENERAL)
    # alex (space grant), robin (owner, no grant), sam (channel grant); writer has
    # write only, agents and apps never count, the unknown id is left out.
    assert body["holders"] == sorted([rc.id("alex"), rc.id("robin"), rc.id("sam")])
    assert len(set(body["holders"])) == len(body["holders"])


def test_trigger_holders_follow_grants_groups_statuses_and_archive_flags(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    people = [rc.id(h) for h in ("alex", "robin", "sam", "writer")]

    rc.grant(
        "g-oncall", "writer", f"channel:{GENERAL}", "trigger", expires_at="2025-01-01T00:00:00Z"
    )
    assert rc.id("writer") not in _holders(rc, "robin", people).json()["holders"]
    group = rc.robin.post(
        "/api/v1/admin/grants",
        json={
            "subject": {"kind": "group", "id": rc.id("oncall")},
            "target": {"kind": "channel", "id": rc.id(GENERAL)},
            "level": "trigger",
        },
    )
    assert group.status_code == 201
    assert rc.id("writer") in _holders(rc, "robin", people).json()["holders"]

    rc.patch_principal("sam", "disabled")
    assert _holders(rc, "robin", people).json()["holders"] == sorted(
        [rc.id("alex"), rc.id("robin"), rc.id("writer")]
    )

    rc.patch_channel(GENERAL, archived=True)
    assert _holders(rc, "robin", people).json()["holders"] == []


def test_trigger_holders_on_a_channel_of_another_space(start_world: Start) -> None:
    rc = start_world(_world())
    people = [rc.id(h) for h in ("alex", "robin", "sam", "writer")]

    body = _holders(rc, "robin", people, CAMPAIGNS).json()

    assert body == {"channel_id": rc.id(CAMPAIGNS), "holders": [rc.id("robin")]}


@pytest.mark.parametrize("asker", ["alex", "lotse", "sam"])
def test_trigger_holders_are_forbidden_to_everyone_else(start_world: Start, asker: str) -> None:
    rc = start_world(_world())

    response = _holders(rc, asker, [rc.id("sam")])

    assert response.status_code == 403
    assert (response.json()["code"], response.json()["reason"]) == ("forbidden", "not_owner")


def test_trigger_holders_of_an_unknown_channel_answer_404(start_world: Start) -> None:
    rc = start_world(_world())

    response = rc.robin.post(
        HOLDERS, json={"channel_id": str(uuid.uuid4()), "principal_ids": [rc.id("sam")]}
    )

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def _explain(
    rc: RunContextWorld,
    actor: str,
    action: str,
    kind: str,
    resource: str | None,
    as_: str = "robin",
) -> Any:
    body: dict[str, Any] = {"actor_id": rc.id(actor), "action": action, "resource": {"kind": kind}}
    if resource is not None:
        body["resource"]["id"] = rc.id(resource)
    return rc.client(as_).post(EXPLAIN, json=body)


def _assert_input_has_only_ids(rc: RunContextWorld, explained: dict[str, Any]) -> None:
    text = dumps(explained)
    for word in (
        "alex",
        "Alex",
        "writer",
        "Writer",
        "sam",
        "Sam",
        "robin",
        "Robin",
        "lotse",
        "Lotse",
        "texter",
        "importer",
        "example.com",
        CONTENT,
        "handle",
        "display_name",
        "email",
        "content",
    ):
        assert word not in text, word


def test_explain_allows_alex_to_post_in_general_and_shows_an_id_only_input(
    start_world: Start,
) -> None:
    rc = start_world(_world())

    response = _explain(rc, "alex", "message.post", "channel", GENERAL)

    assert response.status_code == 200
    body = response.json()
    assert body["decision"] == {"allow": True, "reason": "allowed", "status": 200}
    explained = body["input"]
    assert explained["action"] == "message.post"
    assert explained["actor"] == rc.id("alex")
    assert explained["resource"] == {"kind": "channel", "id": rc.id(GENERAL)}
    assert rc.id("alex") in explained["facts"]["principals"]
    assert rc.id(GENERAL) in explained["facts"]["channels"]
    _assert_input_has_only_ids(rc, explained)


def test_explain_shows_not_found_for_writer_posting_in_campaigns_without_auditing_it(
    start_world: Start,
    database_url: str,
) -> None:
    rc = start_world(_world())

    response = _explain(rc, "writer", "message.post", "channel", CAMPAIGNS)

    assert response.status_code == 200
    body = response.json()
    assert body["decision"] == {"allow": False, "reason": "not_found", "status": 404}
    assert body["input"]["actor"] == rc.id("writer")
    _assert_input_has_only_ids(rc, body["input"])
    assert audit_rows(database_url) == []


def test_explain_shows_not_self_for_another_agent_reading_a_run_context(
    start_world: Start,
) -> None:
    rc = start_world(_world())

    body = _explain(rc, "texter", "run.context.read", "run", "r1").json()

    assert body["decision"] == {"allow": False, "reason": "not_self", "status": 403}
    assert body["input"]["resource"] == {
        "kind": "run",
        "id": rc.id("r1"),
        "agent_id": rc.id("lotse"),
        "channel_id": rc.id(GENERAL),
        "state": "queued",
    }
    _assert_input_has_only_ids(rc, body["input"])


def test_explain_is_forbidden_to_anyone_but_an_owner(start_world: Start, database_url: str) -> None:
    rc = start_world(_world())

    response = _explain(rc, "alex", "message.post", "channel", GENERAL, as_="alex")

    assert response.status_code == 403
    assert (response.json()["code"], response.json()["reason"]) == ("forbidden", "not_owner")
    (row,) = audit_rows(database_url)
    assert (row["actor_id"], row["action"], row["resource_kind"], row["reason"]) == (
        rc.id("alex"),
        "authz.explain",
        "instance",
        "not_owner",
    )


def test_explain_of_an_unknown_actor_answers_404(start_world: Start) -> None:
    rc = start_world(_world())

    response = rc.robin.post(
        EXPLAIN,
        json={
            "actor_id": str(uuid.uuid4()),
            "action": "message.post",
            "resource": {"kind": "channel", "id": rc.id(GENERAL)},
        },
    )

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
