"""Acting-for (issue 21): an agent working on a run reaches no more than its requester.

Against real PostgreSQL and OPA, over HTTP, every answer validated against the spec.
The scenario is the demo world's (``tests.support.acting_for_world``): Alex (trigger
on ``support``) started the run ``r1`` of Lotse; Lotse is also a member of
``finance/ledger``, where Alex has nothing; Scribe may only act for someone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.acting_for_world import GENERAL, LEDGER, ActingForWorld, acting_for_world
from tests.support.client import comparable
from tests.support.run_context_world import audit_rows
from tests.support.world import load

pytestmark = pytest.mark.integration

Start = Callable[..., ActingForWorld]

SESSION = "session-demo-1"  # Lotse's bound session on runner-1
SCRIBE = "session-demo-scribe"


@pytest.fixture
def start(make_service: Callable[..., Any], database_url: str) -> Start:
    """Load the acting-for world (or ``world``) and start the app."""

    def run(world: dict[str, Any] | None = None, **config: Any) -> ActingForWorld:
        ids = load(database_url, world if world is not None else acting_for_world())
        return ActingForWorld(
            service=make_service(**config), ids=dict(ids), database_url=database_url
        )

    return run


def _run_mode(world: ActingForWorld, run: str = "r1") -> dict[str, str]:
    return {"mode": "run", "run_id": world.ids[run]}


OWN = {"mode": "own"}
EXCEEDED = {"code": "forbidden", "message": "Forbidden", "reason": "acting_for_exceeded"}
RUN_REQUIRED = {"code": "forbidden", "message": "Forbidden", "reason": "run_required"}


def _messages_in(world: ActingForWorld, path: str) -> list[str]:
    return [item["id"] for item in world.messages(path)]


# ------------------------------------------------------------ the intersection


def test_with_the_run_bound_list_and_post_where_the_requester_has_nothing_are_exceeded(
    start: Start,
) -> None:
    world = start()
    ledger = world.ids[LEDGER]
    before = _messages_in(world, LEDGER)

    bound = world.bind(SESSION, "r1")
    listing = world.relay_as(SESSION, world.list_call("c1", channel_id=ledger))
    post = world.relay_as(SESSION, world.post_call("c2", "n:c2", "The ledger.", channel_id=ledger))

    assert bound.status_code == 200
    assert bound.json() == {
        "container_name": "ws-demo-lotse",
        "session_id": SESSION,
        "state": "bound",
        "run_id": world.ids["r1"],
    }
    assert listing == {"call_id": "c1", "error": EXCEEDED, "acting_for": _run_mode(world)}
    assert post == {"call_id": "c2", "error": EXCEEDED, "acting_for": _run_mode(world)}
    assert _messages_in(world, LEDGER) == before


def test_the_intersection_allows_what_both_may_on_the_same_channel(start: Start) -> None:
    world = start()
    assert world.bind(SESSION, "r1").status_code == 200

    # The home channel default is decided the same way: Alex may write there.
    post = world.relay_as(SESSION, world.post_call("c1", "n:c1", "Looking into it."))
    listing = world.relay_as(SESSION, world.list_call("c2", limit=2))

    assert post["acting_for"] == _run_mode(world)
    assert post["post_message"]["message"]["channel_id"] == world.ids[GENERAL]
    assert listing["acting_for"] == _run_mode(world)
    assert listing["list_messages"]["items"][-1]["id"] == post["post_message"]["message"]["id"]


def test_after_unbinding_the_agents_own_rights_decide_again(start: Start) -> None:
    world = start()
    ledger = world.ids[LEDGER]
    assert world.bind(SESSION, "r1").status_code == 200
    denied = world.relay_as(SESSION, world.list_call("c1", channel_id=ledger))

    unbound = world.unbind(SESSION)
    listing = world.relay_as(SESSION, world.list_call("c2", channel_id=ledger))
    post = world.relay_as(SESSION, world.post_call("c3", "n:c3", "Own post.", channel_id=ledger))

    assert denied["error"] == EXCEEDED
    assert unbound.status_code == 204
    assert listing["acting_for"] == OWN
    assert [item["id"] for item in listing["list_messages"]["items"]] == [world.ids["l1"]]
    assert post["acting_for"] == OWN
    assert post["post_message"]["message"]["channel_id"] == ledger
    # Unbinding twice is harmless; the session view has no run any more.
    assert world.unbind(SESSION).status_code == 204
    reload = world.runner("runner-1").post(f"/api/v1/runner/sessions/{SESSION}/reload")
    assert "run_id" not in reload.json()


def test_a_channel_the_agent_cannot_see_stays_not_found_in_mode_run(start: Start) -> None:
    world = start()
    other = world.ids["support/other"]
    assert world.bind(SESSION, "r1").status_code == 200

    listing = world.relay_as(SESSION, world.list_call("c1", channel_id=other))
    post = world.relay_as(SESSION, world.post_call("c2", "n:c2", "Hi.", channel_id=other))

    # Alex may write in support/other (space grant), Lotse cannot see it: no new oracle.
    for body in (listing, post):
        assert body["error"] == {"code": "not_found", "message": "Not found"}
        assert body["acting_for"] == _run_mode(world)


def test_the_agents_own_denial_keeps_its_reason_in_mode_run(start: Start) -> None:
    world = start()
    campaigns = world.ids["marketing/campaigns"]
    # Lotse reads campaigns; Alex gets write there: only Lotse's side denies the post.
    world.admin(
        "POST",
        "grants",
        json={
            "subject": {"kind": "principal", "id": world.ids["lotse"]},
            "target": {"kind": "channel", "id": campaigns},
            "level": "read",
        },
    )
    world.admin(
        "POST",
        "grants",
        json={
            "subject": {"kind": "principal", "id": world.ids["alex"]},
            "target": {"kind": "channel", "id": campaigns},
            "level": "write",
        },
    )
    assert world.bind(SESSION, "r1").status_code == 200

    post = world.relay_as(SESSION, world.post_call("c1", "n:c1", "Hi.", channel_id=campaigns))

    assert post["error"] == {"code": "forbidden", "message": "Forbidden", "reason": "no_grant"}


# ------------------------------------------------- the requester's rights, re-read


def test_the_requester_disabled_mid_run_denies_the_very_next_post(start: Start) -> None:
    world = start()
    assert world.bind(SESSION, "r1").status_code == 200
    first = world.relay_as(SESSION, world.post_call("c1", "n:c1", "First."))

    world.set_status("alex", "disabled")
    second = world.relay_as(SESSION, world.post_call("c2", "n:c2", "Second."))
    listing = world.relay_as(SESSION, world.list_call("c3"))
    world.set_status("alex", "active")
    third = world.relay_as(SESSION, world.post_call("c4", "n:c4", "Third."))

    assert "post_message" in first
    assert second["error"] == EXCEEDED
    assert listing["error"] == EXCEEDED
    assert "post_message" in third


def test_the_requesters_grant_revoked_mid_run_denies_the_very_next_post(start: Start) -> None:
    world = start()
    assert world.bind(SESSION, "r1").status_code == 200
    first = world.relay_as(SESSION, world.post_call("c1", "n:c1", "First."))

    world.admin("DELETE", f"grants/{world.ids['g-alex-support']}")
    second = world.relay_as(SESSION, world.post_call("c2", "n:c2", "Second."))
    # Lotse itself still may (it is a member of its home channel), unbound.
    assert world.unbind(SESSION).status_code == 204
    own = world.relay_as(SESSION, world.post_call("c3", "n:c3", "Own."))

    assert "post_message" in first
    assert second == {"call_id": "c2", "error": EXCEEDED, "acting_for": _run_mode(world)}
    assert "post_message" in own


def test_an_expired_grant_of_the_requester_does_not_count(start: Start) -> None:
    world = start()
    world.admin("DELETE", f"grants/{world.ids['g-alex-support']}")
    world.admin(
        "POST",
        "grants",
        json={
            "subject": {"kind": "principal", "id": world.ids["alex"]},
            "target": {"kind": "channel", "id": world.ids[GENERAL]},
            "level": "write",
            "expires_at": "2025-01-01T00:00:00Z",
        },
    )
    assert world.bind(SESSION, "r1").status_code == 200

    post = world.relay_as(SESSION, world.post_call("c1", "n:c1", "Hi."))

    assert post["error"] == EXCEEDED


def test_acting_for_denials_are_audited_with_the_mode_and_the_run(start: Start) -> None:
    world = start()
    ledger = world.ids[LEDGER]
    world.relay_as(
        SESSION, world.post_call("c0", "n:c0", "Hi.", channel_id=world.ids["support/other"])
    )
    assert world.bind(SESSION, "r1").status_code == 200

    world.relay_as(SESSION, world.post_call("c1", "n:c1", "No.", channel_id=ledger))
    world.relay_as(SESSION, world.post_call("c2", "n:c2", "No.", channel_id=ledger))

    rows = {
        (row["action"], row["reason"], row["acting_for"], row["acting_for_run_id"]): row["count"]
        for row in audit_rows(world.database_url)
        if row["actor_id"] == world.ids["lotse"]
    }
    assert rows == {
        ("message.post", "not_found", "own", None): 1,
        ("message.post", "acting_for_exceeded", "run", world.ids["r1"]): 2,
    }


# ------------------------------------------------------------ binding a run


def test_only_a_live_run_of_the_sessions_own_agent_binds_else_the_unknown_sessions_404(
    start: Start,
) -> None:
    world = start()
    unknown_session = world.bind("session-never-seen", "r1")

    other_agents_run = world.bind(SESSION, "r2")  # Scribe's run, Lotse's session
    unknown_run = world.bind(SESSION, "5f1e6c1a-0000-4000-8000-00000000beef")
    other_runners_session = world.bind("session-r2", "r1")  # runner-2's session, runner-1
    world.end_run("r1")
    ended_run = world.bind(SESSION, "r1")

    assert unknown_session.status_code == 404
    for response in (other_agents_run, unknown_run, other_runners_session, ended_run):
        assert comparable(response) == comparable(unknown_session)
    reload = world.runner("runner-1").post(f"/api/v1/runner/sessions/{SESSION}/reload")
    assert "run_id" not in reload.json()


def test_a_runner_binds_through_its_own_session_only(start: Start) -> None:
    world = start()

    own = world.bind("session-r2", "r1", runner="runner-2")
    listing = world.relay_as(
        "session-r2", world.list_call("c1", channel_id=world.ids[LEDGER]), runner="runner-2"
    )
    foreign_unbind = world.unbind("session-r2", runner="runner-1")

    assert own.status_code == 200
    assert listing["error"] == EXCEEDED
    assert foreign_unbind.status_code == 404


def test_only_a_runner_token_binds_and_the_relay_body_cannot_name_a_run(start: Start) -> None:
    world = start()

    by_agent = world.client("tok-lotse").request(
        "PUT", f"/api/v1/runner/sessions/{SESSION}/run", json={"run_id": world.ids["r1"]}
    )
    by_owner = world.client("tok-robin").request(
        "PUT", f"/api/v1/runner/sessions/{SESSION}/run", json={"run_id": world.ids["r1"]}
    )
    named = world.runner("runner-1").post(
        "/api/v1/runner/comms:relay",
        json={"session_id": SESSION, "call": world.list_call("c1"), "run_id": world.ids["r1"]},
    )
    in_call = world.runner("runner-1").post(
        "/api/v1/runner/comms:relay",
        json={"session_id": SESSION, "call": {**world.list_call("c2"), "run_id": world.ids["r1"]}},
    )

    assert by_agent.status_code == 401
    assert by_owner.status_code == 401
    assert named.status_code == 422
    assert in_call.status_code == 422
    assert world.relay_as(SESSION, world.list_call("c3"))["acting_for"] == OWN


def test_a_run_ending_while_bound_unbinds_itself_at_the_next_call(start: Start) -> None:
    world = start()
    ledger = world.ids[LEDGER]
    assert world.bind(SESSION, "r1").status_code == 200
    during = world.relay_as(SESSION, world.list_call("c1", channel_id=ledger))

    world.end_run("r1", "cancelled")
    after = world.relay_as(SESSION, world.list_call("c2", channel_id=ledger))

    assert during["error"] == EXCEEDED
    assert after["acting_for"] == OWN
    assert "list_messages" in after
    # The session still names the run, which no longer binds anything.
    reload = world.runner("runner-1").post(f"/api/v1/runner/sessions/{SESSION}/reload")
    assert reload.json()["run_id"] == world.ids["r1"]


def test_a_new_session_id_of_the_container_drops_the_bound_run(start: Start) -> None:
    world = start()
    assert world.bind(SESSION, "r1").status_code == 200

    report = world.runner("runner-1").post(
        "/api/v1/runner/sessions",
        json={"container_name": "ws-demo-lotse", "session_id": "session-demo-1b"},
    )
    listing = world.relay_as("session-demo-1b", world.list_call("c1", channel_id=world.ids[LEDGER]))

    assert report.status_code == 200
    assert "run_id" not in report.json()
    assert listing["acting_for"] == OWN


def test_re_enrolment_drops_the_session_and_its_run(start: Start) -> None:
    world = start()
    assert world.bind(SESSION, "r1").status_code == 200

    assert world.runner("runner-1").post("/api/v1/runner/enroll").status_code == 200

    assert world.relay(SESSION, world.list_call("c1"), "runner-1").status_code == 404
    assert world.bind(SESSION, "r1").status_code == 404


# ------------------------------------------------------------ acting_for: required


def test_an_agent_that_must_act_for_someone_is_refused_without_a_bound_run(start: Start) -> None:
    world = start()

    post = world.relay_as(SCRIBE, world.post_call("c1", "n:c1", "Alone."))
    listing = world.relay_as(SCRIBE, world.list_call("c2"))
    invisible = world.relay_as(SCRIBE, world.list_call("c3", channel_id=world.ids[LEDGER]))

    assert post == {"call_id": "c1", "error": RUN_REQUIRED, "acting_for": OWN}
    assert listing == {"call_id": "c2", "error": RUN_REQUIRED, "acting_for": OWN}
    assert invisible["error"] == {"code": "not_found", "message": "Not found"}


def test_an_agent_that_must_act_for_someone_works_for_the_bound_runs_requester(
    start: Start,
) -> None:
    world = start()

    bound = world.bind(SCRIBE, "r2")
    post = world.relay_as(SCRIBE, world.post_call("c1", "n:c1", "Draft of the update."))
    listing = world.relay_as(SCRIBE, world.list_call("c2", limit=1))
    world.end_run("r2")
    ended = world.relay_as(SCRIBE, world.post_call("c3", "n:c3", "After the run."))

    assert bound.status_code == 200
    assert post["acting_for"] == _run_mode(world, "r2")
    assert post["post_message"]["message"]["author"]["id"] == world.ids["scribe"]
    assert listing["acting_for"] == _run_mode(world, "r2")
    assert ended == {"call_id": "c3", "error": RUN_REQUIRED, "acting_for": OWN}


def test_its_own_token_reads_its_run_context_but_may_not_post_or_list(start: Start) -> None:
    world = start()
    scribe = world.client("tok-scribe")
    general = world.ids[GENERAL]

    context = scribe.get(f"/api/v1/runs/{world.ids['r2']}/context")
    listing = scribe.get(f"/api/v1/channels/{general}/messages")
    post = scribe.post(f"/api/v1/channels/{general}/messages", json={"content_md": "Hi."})
    invisible = scribe.get(f"/api/v1/channels/{world.ids[LEDGER]}/messages")
    unknown = scribe.get("/api/v1/channels/5f1e6c1a-0000-4000-8000-00000000beef/messages")

    assert context.status_code == 200
    assert context.json()["trigger_message"]["trust"] == "trigger"
    for refused in (listing, post):
        assert refused.status_code == 403
        assert (refused.json()["code"], refused.json()["reason"]) == ("forbidden", "run_required")
    assert comparable(invisible) == comparable(unknown)


def test_the_admin_api_switches_acting_for_on_and_off(start: Start) -> None:
    world = start()
    lotse = world.ids["lotse"]

    required = world.admin("PATCH", f"principals/{lotse}", json={"acting_for": "required"})
    refused = world.relay_as(SESSION, world.list_call("c1"))
    optional = world.admin("PATCH", f"principals/{lotse}", json={"acting_for": "optional"})
    allowed = world.relay_as(SESSION, world.list_call("c2"))
    person = world.client("tok-robin").patch(
        f"/api/v1/admin/principals/{world.ids['alex']}", json={"acting_for": "required"}
    )
    empty = world.client("tok-robin").patch(f"/api/v1/admin/principals/{lotse}", json={})
    status_only = world.admin("PATCH", f"principals/{world.ids['sam']}", json={"status": "active"})

    assert required.json() == {
        "id": lotse,
        "kind": "agent",
        "status": "active",
        "is_owner": False,
        "acting_for": "required",
    }
    assert refused["error"] == RUN_REQUIRED
    assert optional.json()["acting_for"] == "optional"
    assert "list_messages" in allowed
    assert person.status_code == 422
    assert empty.status_code == 422
    assert "acting_for" not in status_only.json()


# ------------------------------------------------------------ explain and cost


def test_explain_shows_both_principals_and_the_side_that_failed(start: Start) -> None:
    world = start()
    owner = world.client("tok-robin")
    request = {
        "actor_id": world.ids["lotse"],
        "action": "message.post",
        "resource": {"kind": "channel", "id": world.ids[LEDGER]},
    }

    acting = owner.post(
        "/api/v1/authz/explain", json={**request, "acting_for": {"run_id": world.ids["r1"]}}
    )
    own = owner.post("/api/v1/authz/explain", json=request)
    unknown = owner.post(
        "/api/v1/authz/explain",
        json={**request, "acting_for": {"run_id": "5f1e6c1a-0000-4000-8000-00000000beef"}},
    )

    assert acting.status_code == 200
    body = acting.json()
    assert body["decision"] == {
        "allow": False,
        "reason": "acting_for_exceeded",
        "status": 403,
        "acting_for": {"mode": "run", "run_id": world.ids["r1"], "failed": ["requester"]},
    }
    assert set(body["input"]["facts"]["principals"]) == {world.ids["lotse"], world.ids["alex"]}
    assert body["input"]["acting_for"] == {
        "run": {"id": world.ids["r1"], "agent_id": world.ids["lotse"], "state": "queued"},
        "requester": world.ids["alex"],
    }
    assert own.json()["decision"] == {"allow": True, "reason": "allowed", "status": 200}
    assert "acting_for" not in own.json()["input"]
    assert unknown.status_code == 404


def test_a_bound_relay_costs_what_an_unbound_one_costs(start: Start) -> None:
    world = start()
    service = world.service
    call = world.list_call("c1")

    def cost() -> tuple[int, int]:
        opa, sql = service.opa_calls, service.sql_statements
        world.relay_as(SESSION, call)
        return service.opa_calls - opa, service.sql_statements - sql

    cost()  # warm the prepared statements
    unbound = cost()
    assert world.bind(SESSION, "r1").status_code == 200
    bound = cost()

    assert unbound[0] == bound[0] == 2
    assert bound[1] == unbound[1]
