"""Behaviour that ``openapi/openapi.yaml`` documents explicitly, checked literally.

Each test quotes the sentence of the contract it checks. Where the implementation
answers differently, the test fails until either the code or the contract changes.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


# ------------------------------------------------------------------ messages


def test_a_before_message_id_outside_the_listed_thread_answers_404(
    make_service: Any, ids: dict[str, str]
) -> None:
    # listChannelMessages: "A parent_message_id or before_message_id that does not name a
    # visible message of this channel ... also answers 404".
    service = make_service()
    alex = service.client("tok-alex")

    in_thread = alex.get(
        messages_path(ids["support/general"]), params={"before_message_id": ids["m4"]}
    )
    unknown = alex.get(
        messages_path(ids["support/general"]), params={"before_message_id": str(uuid.uuid4())}
    )

    assert (in_thread.status_code, unknown.status_code) == (404, 404)


def test_a_parent_message_without_a_thread_yet_lists_an_empty_page(
    make_service: Any, ids: dict[str, str]
) -> None:
    # listChannelMessages: "a parent message without a thread yet gives an empty page".
    service = make_service()

    response = service.client("tok-alex").get(
        messages_path(ids["support/general"]), params={"parent_message_id": ids["m2"]}
    )

    assert response.status_code == 200
    assert response.json() == {"items": [], "has_more": False}


def test_a_reply_to_message_id_that_names_no_message_answers_404(
    make_service: Any, ids: dict[str, str]
) -> None:
    # postChannelMessage: "A parent_message_id or reply_to_message_id that does not name a
    # visible message answers 404; a reply target outside the thread posted into answers
    # 422."
    service = make_service()

    response = service.client("tok-alex").post(
        messages_path(ids["support/general"]),
        json={"content_md": "x", "reply_to_message_id": str(uuid.uuid4())},
    )

    assert response.status_code == 404


def test_a_client_request_id_used_in_another_channel_answers_409(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    # postChannelMessage: "409 when the author's client_request_id already names a message
    # in another channel or thread."
    service = make_service()
    robin = service.client("tok-robin")
    first = robin.post(
        messages_path(ids["support/general"]),
        json={"content_md": "in general", "client_request_id": "k-1"},
    )
    assert first.status_code == 201

    other_channel = robin.post(
        messages_path(ids["support/other"]),
        json={"content_md": "in other", "client_request_id": "k-1"},
    )
    other_thread = robin.post(
        messages_path(ids["support/general"]),
        json={"content_md": "in t1", "client_request_id": "k-1", "parent_message_id": ids["m1"]},
    )

    assert (other_channel.status_code, other_thread.status_code) == (409, 409)
    assert other_channel.json()["code"] == "conflict"


def test_a_moved_thread_can_be_posted_into_where_it_can_be_listed(
    make_service: Any, ids: dict[str, str]
) -> None:
    # SPEC 4: "a thread can be moved to another channel". Listing the moved thread through
    # its new channel works (parent_message_id); posting into it the same way must too.
    service = make_service()
    robin = service.client("tok-robin")
    robin.post(f"/api/v1/admin/threads/{ids['t1']}/move", json={"channel_id": ids["support/other"]})

    listed = robin.get(messages_path(ids["support/other"]), params={"parent_message_id": ids["m1"]})
    posted = robin.post(
        messages_path(ids["support/other"]),
        json={"content_md": "after the move", "parent_message_id": ids["m1"]},
    )

    assert listed.status_code == 200
    assert posted.status_code == 201


# ------------------------------------------------------------------ admin


def test_an_identical_grant_answers_409(make_service: Any, ids: dict[str, str]) -> None:
    # adminCreateGrant: "409 when an identical grant (same subject, target and level)
    # exists."
    service = make_service()
    body = {
        "subject": {"kind": "principal", "id": ids["newbie"]},
        "target": {"kind": "channel", "id": ids["support/general"]},
        "level": "read",
    }
    robin = service.client("tok-robin")

    first = robin.post("/api/v1/admin/grants", json=body)
    second = robin.post("/api/v1/admin/grants", json=body)

    assert (first.status_code, second.status_code) == (201, 409)


def test_moving_a_main_thread_answers_409(make_service: Any, ids: dict[str, str]) -> None:
    # adminMoveThread: "409 when the thread is a main thread (main threads never move)".
    service = make_service()

    response = service.client("tok-robin").post(
        f"/api/v1/admin/threads/{ids['support/general#main']}/move",
        json={"channel_id": ids["support/other"]},
    )

    assert response.status_code == 409


def test_moving_a_thread_into_a_dm_channel_answers_409(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    # adminMoveThread: "409 when ... the target is a DM channel."
    dm = sql(
        "INSERT INTO channels (space_id, name, kind) VALUES (CAST(:s AS uuid), 'dm-1', "
        "'dm') RETURNING id::text",
        s=ids["support"],
    )[0][0]
    service = make_service()

    response = service.client("tok-robin").post(
        f"/api/v1/admin/threads/{ids['t1']}/move", json={"channel_id": dm}
    )

    assert response.status_code == 409
    assert (
        sql("SELECT channel_id::text FROM threads WHERE id = CAST(:t AS uuid)", t=ids["t1"])[0][0]
        == ids["support/general"]
    )


def test_a_history_backfill_limit_above_the_configured_maximum_answers_422(
    make_service: Any, ids: dict[str, str]
) -> None:
    # adminUpdateChannel: "history_backfill_limit above channel.history_backfill_limit_max
    # answers 422".
    service = make_service(**{"channel.history_backfill_limit_max": 100})

    response = service.client("tok-robin").patch(
        f"/api/v1/admin/channels/{ids['support/other']}", json={"history_backfill_limit": 101}
    )

    assert response.status_code == 422
    assert [e["path"] for e in response.json()["errors"]] == ["body/history_backfill_limit"]


def test_an_operator_agent_id_that_names_a_person_is_refused(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    # adminUpdateChannel: "an operator_agent_id that names no agent answers 404" (the
    # brief of the foundation asks 422 for unknown body references; either refuses).
    service = make_service()

    response = service.client("tok-robin").patch(
        f"/api/v1/admin/channels/{ids['support/other']}", json={"operator_agent_id": ids["sam"]}
    )

    assert response.status_code in (404, 422)
    assert (
        sql(
            "SELECT operator_agent_id::text FROM channels WHERE id = CAST(:c AS uuid)",
            c=ids["support/other"],
        )[0][0]
        == ids["lotse"]
    )


def test_a_message_run_without_a_triggering_message_answers_422(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    # adminCreateRun: "a message run needs triggering_message_id (422 otherwise)".
    service = make_service()
    runs = sql("SELECT count(*) FROM runs")[0][0]

    response = service.client("tok-robin").post(
        "/api/v1/admin/runs", json={"thread_id": ids["t1"], "agent_id": ids["lotse"]}
    )

    assert response.status_code == 422
    assert sql("SELECT count(*) FROM runs")[0][0] == runs


def test_a_second_follow_up_of_a_run_for_the_same_message_answers_409(
    make_service: Any, ids: dict[str, str]
) -> None:
    # adminCreateFollowup: "409 when a follow-up of this run for this message exists."
    service = make_service()
    robin = service.client("tok-robin")
    body = {"run_id": ids["r1"], "message_id": ids["m5"]}

    first = robin.post("/api/v1/admin/followups", json=body)
    second = robin.post("/api/v1/admin/followups", json=body)

    assert (first.status_code, second.status_code) == (201, 409)


def test_a_session_without_agent_on_a_thread_without_operator_answers_409(
    make_service: Any, ids: dict[str, str]
) -> None:
    # adminSetThreadSession: "409 when agent_id is absent and the thread has no operator."
    service = make_service()

    response = service.client("tok-robin").post(
        f"/api/v1/admin/threads/{ids['support/archive#main']}/session", json={"mode": "reset"}
    )

    assert response.status_code == 409
