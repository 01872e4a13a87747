"""The comms relay executes agent calls as the bound account, like a person's calls.

decisions.md S2-T2: happy-path post, non-member channel, home-channel default, idempotent
retry, in-band failures with the codes a person gets, and denials audited like a
person's. Real PostgreSQL and OPA; every response validated against the spec.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text

from repositories import make_engine
from tests.support.comms_world import CommsWorld
from tests.support.run_context_world import GENERAL, audit_rows

pytestmark = pytest.mark.integration

Start = Callable[..., CommsWorld]


def _stored(database_url: str, message_id: str) -> dict[str, Any]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text(
                    "SELECT m.id::text AS id, m.author_principal_id::text AS author,"
                    " m.origin AS origin, m.content_md AS content, t.channel_id::text AS channel,"
                    " m.client_request_id AS key FROM messages m JOIN threads t"
                    " ON t.id = m.thread_id WHERE m.id = CAST(:id AS uuid)"
                ),
                {"id": message_id},
            ).one()
            return dict(row._mapping)
    finally:
        engine.dispose()


def _count(database_url: str, key: str) -> int:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text("SELECT count(*) FROM messages WHERE client_request_id = :key"),
                    {"key": key},
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_a_relayed_post_is_stored_with_the_agent_as_author(start_comms: Start) -> None:
    world = start_comms()

    body = world.relay_ok(
        "sess-1",
        world.post_call(
            "call_1", "n1:call_1", "Status: the export is fixed.", channel_id=world.ids[GENERAL]
        ),
    )

    posted = body["post_message"]
    assert posted["replayed"] is False
    message = posted["message"]
    assert message["author"]["id"] == world.ids["lotse"]
    assert message["author"]["kind"] == "agent"
    assert message["origin"] == "agent"
    assert message["channel_id"] == world.ids[GENERAL]
    stored = _stored(world.database_url, message["id"])
    assert stored == {
        "id": message["id"],
        "author": world.ids["lotse"],
        "origin": "agent",
        "content": "Status: the export is fixed.",
        "channel": world.ids[GENERAL],
        "key": "n1:call_1",
    }
    # A person reads the agent's post through the messages API like any other.
    assert world.messages()[-1]["id"] == message["id"]


def test_an_absent_channel_id_means_the_agents_home_channel(start_comms: Start) -> None:
    world = start_comms()

    posted = world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Home post."))
    listed = world.relay_ok("sess-1", world.list_call("c2"))

    assert posted["post_message"]["message"]["channel_id"] == world.ids[GENERAL]
    items = listed["list_messages"]["items"]
    assert items[-1]["id"] == posted["post_message"]["message"]["id"]
    assert {item["channel_id"] for item in items} == {world.ids[GENERAL]}


@pytest.mark.parametrize("channel_id", ["", "   ", "\t"])
def test_an_empty_or_blank_channel_id_is_rejected_in_band(
    start_comms: Start, channel_id: str
) -> None:
    world = start_comms()

    post = world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Hi.", channel_id=channel_id))
    listing = world.relay_ok("sess-1", world.list_call("c2", channel_id=channel_id))

    for body in (post, listing):
        assert body["error"]["code"] == "validation_failed"
        assert "channel_id" in body["error"]["message"]
    assert _count(world.database_url, "n:c1") == 0


def test_a_channel_the_agent_cannot_see_is_not_found_in_band(start_comms: Start) -> None:
    world = start_comms()
    other = world.ids["support/other"]

    post = world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Hi.", channel_id=other))
    listing = world.relay_ok("sess-1", world.list_call("c2", channel_id=other))

    assert post["error"] == {"code": "not_found", "message": "Not found"}
    assert listing["error"] == {"code": "not_found", "message": "Not found"}


def test_a_readable_channel_without_write_is_forbidden_in_band_with_the_reason(
    start_comms: Start,
) -> None:
    world = start_comms()
    campaigns = world.ids["marketing/campaigns"]

    post = world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Hi.", channel_id=campaigns))
    listing = world.relay_ok("sess-1", world.list_call("c2", channel_id=campaigns))

    assert post["error"] == {"code": "forbidden", "message": "Forbidden", "reason": "no_grant"}
    assert "items" in listing["list_messages"]


def test_in_band_codes_equal_what_the_agent_gets_over_the_messages_api(
    start_comms: Start,
) -> None:
    world = start_comms()
    lotse = world.client("tok-lotse")
    for path, expected in (("support/other", 404), ("marketing/campaigns", 403)):
        direct = lotse.post(
            f"/api/v1/channels/{world.ids[path]}/messages", json={"content_md": "Hi."}
        )
        relayed = world.relay_ok(
            "sess-1", world.post_call("c1", "n:c1", "Hi.", channel_id=world.ids[path])
        )
        assert direct.status_code == expected
        assert relayed["error"]["code"] == direct.json()["code"]
        assert relayed["error"].get("reason") == direct.json().get("reason")


def test_a_relayed_denial_is_audited_like_the_same_denial_of_a_person(
    start_comms: Start,
) -> None:
    world = start_comms()
    other = world.ids["support/other"]

    world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Hi.", channel_id=other))
    relayed_rows = audit_rows(world.database_url)
    world.client("tok-lotse").post(f"/api/v1/channels/{other}/messages", json={"content_md": "Hi."})
    rows = audit_rows(world.database_url)

    assert len(relayed_rows) == 1
    row = relayed_rows[0]
    assert (row["actor_id"], row["action"], row["resource_kind"], row["reason"], row["status"]) == (
        world.ids["lotse"],
        "message.post",
        "channel",
        "not_found",
        404,
    )
    # The person-path denial aggregates into the very same row.
    assert len(rows) == 1
    assert rows[0]["count"] == 2


def test_a_repeated_post_returns_the_first_stored_message_and_says_so(
    start_comms: Start,
) -> None:
    world = start_comms()

    first = world.relay_ok("sess-1", world.post_call("c1", "nonce-a:call_7", "First text."))
    again = world.relay_ok("sess-1", world.post_call("c1", "nonce-a:call_7", "Retry text."))

    assert first["post_message"]["replayed"] is False
    assert again["post_message"]["replayed"] is True
    assert again["post_message"]["message"] == first["post_message"]["message"]
    stored = _stored(world.database_url, again["post_message"]["message"]["id"])
    assert stored["content"] == "First text."
    assert again["post_message"]["message"]["content_md"] == stored["content"]
    assert _count(world.database_url, "nonce-a:call_7") == 1


def test_two_sessions_of_one_agent_with_the_same_tool_call_id_do_not_collide(
    start_comms: Start,
) -> None:
    world = start_comms()

    # Each broker scopes its keys with its own nonce: <nonce>:<tool_call_id>.
    a = world.relay_ok("sess-1", world.post_call("call_1", "nonce-a:call_1", "From A."))
    b = world.relay_ok("sess-2", world.post_call("call_1", "nonce-b:call_1", "From B."))

    assert a["post_message"]["replayed"] is False
    assert b["post_message"]["replayed"] is False
    assert a["post_message"]["message"]["id"] != b["post_message"]["message"]["id"]
    assert _stored(world.database_url, b["post_message"]["message"]["id"])["content"] == "From B."


def test_a_key_reused_for_another_thread_is_a_conflict_in_band(start_comms: Start) -> None:
    world = start_comms()
    world.relay_ok("sess-1", world.post_call("c1", "n:c1", "Main thread."))

    body = world.relay_ok(
        "sess-1", world.post_call("c1", "n:c1", "In a thread.", parent_message_id=world.ids["q1"])
    )

    assert body["error"]["code"] == "conflict"
    assert _count(world.database_url, "n:c1") == 1


def _post(**fields: Any) -> dict[str, Any]:
    return {"post_message": {"content_md": "x", "client_request_id": "k", **fields}}


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (_post(content_md="x" * 65537), "content_md"),
        (_post(content_md=""), "content_md"),
        (_post(client_request_id="no spaces"), "client_request_id"),
        (_post(client_request_id="k" * 129), "client_request_id"),
        (_post(parent_message_id="m"), "parent_message_id"),
        (_post(channel_id="general"), "channel_id"),
        ({"list_messages": {"limit": 0}}, "limit"),
        ({"list_messages": {"limit": 101}}, "limit"),
        ({"list_messages": {"before_message_id": "older"}}, "before_message_id"),
        # Text PostgreSQL cannot store is a value violation of the call too (issue 19).
        (_post(content_md="nul \u0000 inside"), "content_md"),
        (_post(content_md="lone \ud800 surrogate"), "content_md"),
    ],
)
def test_values_beyond_the_messages_api_bounds_fail_in_band(
    start_comms: Start, call: dict[str, Any], field: str
) -> None:
    world = start_comms()

    body = world.relay_ok("sess-1", {"call_id": "c1", **call})

    assert body["error"]["code"] == "validation_failed"
    assert field in body["error"]["message"]
    assert "\n" not in body["error"]["message"]
    assert len(body["error"]["message"]) <= 200


@pytest.mark.parametrize(
    "call",
    [
        {"call_id": "c1", "respond_to_ask": {"ask_id": "a1", "answer": "yes"}},
        {"call_id": "c1", **_post(), "list_messages": {}},
        {"call_id": "c1"},
        _post(),
        {"call_id": "c1", **_post(author_id="x")},
        {"call_id": "c1", "post_message": {"content_md": "x"}},
        {"call_id": "bad id", "list_messages": {}},
    ],
)
def test_envelopes_outside_the_union_are_rejected_with_422(
    start_comms: Start, call: dict[str, Any]
) -> None:
    world = start_comms()

    response = world.relay("sess-1", call)

    assert response.status_code == 422
    assert response.json()["code"] == "validation_failed"


def test_the_agents_rate_limit_answers_in_band(start_comms: Start) -> None:
    world = start_comms(**{"rate_limit.chat.per_minute": 1})

    first = world.relay_ok("sess-1", world.list_call("c1"))
    second = world.relay_ok("sess-1", world.list_call("c2"))

    assert "list_messages" in first
    assert second["error"]["code"] == "rate_limited"


def test_the_listing_is_oldest_first_with_thread_parents(start_comms: Start) -> None:
    world = start_comms()

    page = world.relay_ok("sess-1", world.list_call("c1", limit=3))["list_messages"]

    assert [item["id"] for item in page["items"]] == [world.ids[k] for k in ("q1", "q2", "q3")]
    assert page["items"][2]["reply_to_message_id"] == world.ids["q1"]
    assert page["has_more"] is False


def test_the_relay_logs_session_ids_never_message_text(start_comms: Start) -> None:
    world = start_comms()
    canary = "canary-7c1f2e-relay-body"

    world.relay_ok("sess-1", world.post_call("c1", "n:c1", f"Secret {canary}."))
    world.relay_ok(
        "sess-1", world.post_call("c2", "n:c2", canary, channel_id=world.ids["support/other"])
    )

    log = world.service.log.getvalue()
    assert canary not in log
    relay_lines = [line for line in log.splitlines() if '"comms relay"' in line]
    assert len(relay_lines) == 2
    assert all('"session_id": "sess-1"' in line for line in relay_lines)
    assert '"outcome": "not_found"' in relay_lines[1]


def test_an_unstorable_text_fails_in_band_and_stores_nothing(start_comms: Start) -> None:
    world = start_comms()

    body = world.relay_ok("sess-1", world.post_call("c1", "n:nul", "nul \u0000 inside"))

    assert body["error"] == {
        "code": "validation_failed",
        "message": "The call does not match the messages API. "
        "call/post_message/content_md: NUL or unpaired surrogate",
    }
    assert _count(world.database_url, "n:nul") == 0


def test_an_upper_case_channel_id_names_the_same_channel(start_comms: Start) -> None:
    world = start_comms()
    general = world.ids[GENERAL]

    body = world.relay_ok(
        "sess-1", world.post_call("c1", "n:upper", "Upper case id.", channel_id=general.upper())
    )
    listed = world.relay_ok("sess-1", world.list_call("c2", channel_id=general.upper()))

    assert body["post_message"]["message"]["channel_id"] == general
    assert [m["content_md"] for m in listed["list_messages"]["items"]][-1] == "Upper case id."
