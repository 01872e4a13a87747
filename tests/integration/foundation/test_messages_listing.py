"""Messages API, listing and threads: pages of a main thread or a thread, oldest first."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.integration.foundation.api_calls import post_message
from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def test_a_post_is_listed_last_in_the_main_thread(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    writer = service.client("tok-writer")

    posted = post_message(writer, ids["support/general"], "status: export fixed")
    listed = writer.get(messages_path(ids["support/general"]))

    assert posted.status_code == 201
    message = posted.json()
    assert message["channel_id"] == ids["support/general"]
    assert message["thread_id"] == ids["support/general#main"]
    assert message["thread_seq"] == 4
    assert message["author"] == {
        "id": ids["writer"],
        "kind": "user",
        "handle": "writer",
        "display_name": "Writer",
    }
    assert message["origin"] == "human"
    assert message["kind"] == "text"
    assert message["deleted"] is False
    assert message["attachments"] == []
    assert "parent_message_id" not in message
    assert "client_request_id" not in message
    page = listed.json()
    assert [item["id"] for item in page["items"]] == [
        ids["m1"],
        ids["m2"],
        ids["m3"],
        message["id"],
    ]
    assert page["items"][-1] == message
    assert page["has_more"] is False
    assert page["items"][1]["reply_to_message_id"] == ids["m1"]


def test_pages_are_oldest_first_and_walk_back_with_before_message_id(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    channel = ids["support/other"]
    posted = [post_message(robin, channel, f"note {n}").json()["id"] for n in range(7)]

    first = robin.get(messages_path(channel), params={"limit": 3}).json()
    second = robin.get(
        messages_path(channel), params={"limit": 3, "before_message_id": first["items"][0]["id"]}
    ).json()
    third = robin.get(
        messages_path(channel), params={"limit": 3, "before_message_id": second["items"][0]["id"]}
    ).json()

    assert [m["id"] for m in first["items"]] == posted[4:7]
    assert [m["id"] for m in second["items"]] == posted[1:4]
    assert [m["id"] for m in third["items"]] == posted[0:1]
    assert (first["has_more"], second["has_more"], third["has_more"]) == (True, True, False)
    assert [m["thread_seq"] for m in first["items"]] == [5, 6, 7]
    everything = robin.get(messages_path(channel), params={"limit": 100}).json()
    assert [m["id"] for m in everything["items"]] == posted
    assert everything["has_more"] is False


def test_a_page_exactly_as_long_as_the_rest_has_no_more(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    page = (
        service.client("tok-sam")
        .get(messages_path(ids["support/general"]), params={"limit": 3})
        .json()
    )

    assert len(page["items"]) == 3
    assert page["has_more"] is False


def test_an_empty_main_thread_lists_an_empty_page(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    page = service.client("tok-robin").get(messages_path(ids["support/other"])).json()

    assert page == {"items": [], "has_more": False}


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten"])
def test_a_limit_outside_1_to_100_is_422(
    make_service: Any, ids: dict[str, str], limit: str
) -> None:
    service = make_service()

    response = service.client("tok-robin").get(
        messages_path(ids["support/general"]), params={"limit": limit}
    )

    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_failed"
    assert body["errors"] == [{"path": "query/limit", "message": "invalid value"}]


def test_posting_with_a_parent_creates_the_thread_once_and_lists_it(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    channel = ids["support/other"]
    parent = post_message(robin, channel, "release checklist").json()

    first = post_message(robin, channel, "step one", parent_message_id=parent["id"])
    second = post_message(robin, channel, "step two", parent_message_id=parent["id"])

    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json()["thread_id"] == second.json()["thread_id"] != parent["thread_id"]
    assert [first.json()["thread_seq"], second.json()["thread_seq"]] == [1, 2]
    assert first.json()["parent_message_id"] == parent["id"]
    assert (
        sql(
            "SELECT count(*) FROM threads WHERE parent_message_id = CAST(:id AS uuid)",
            id=parent["id"],
        )[0][0]
        == 1
    )
    thread = robin.get(messages_path(channel), params={"parent_message_id": parent["id"]})
    assert [m["content_md"] for m in thread.json()["items"]] == ["step one", "step two"]
    assert all(m["parent_message_id"] == parent["id"] for m in thread.json()["items"])
    main = robin.get(messages_path(channel)).json()
    assert [m["id"] for m in main["items"]] == [parent["id"]]


def test_a_post_into_an_existing_thread_appends_to_it(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    alex = service.client("tok-alex")

    posted = post_message(
        alex,
        ids["support/general"],
        "one more point",
        parent_message_id=ids["m1"],
        reply_to_message_id=ids["m5"],
    )

    assert posted.status_code == 201
    assert posted.json()["thread_id"] == ids["t1"]
    assert posted.json()["thread_seq"] == 4
    assert posted.json()["reply_to_message_id"] == ids["m5"]
    items = alex.get(
        messages_path(ids["support/general"]), params={"parent_message_id": ids["m1"]}
    ).json()["items"]
    assert [m["id"] for m in items] == [ids["m4"], ids["m5"], ids["m6"], posted.json()["id"]]


def test_a_parent_that_is_not_a_main_thread_message_of_the_channel_is_404(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    in_thread = post_message(robin, ids["support/general"], "x", parent_message_id=ids["m4"])
    other_channel = post_message(robin, ids["support/other"], "x", parent_message_id=ids["m1"])
    unknown = post_message(robin, ids["support/general"], "x", parent_message_id=str(uuid.uuid4()))

    assert [r.status_code for r in (in_thread, other_channel, unknown)] == [404, 404, 404]


def test_a_reply_to_outside_the_thread_is_422(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    in_main = post_message(
        service.client("tok-alex"), ids["support/general"], "x", reply_to_message_id=ids["m4"]
    )
    in_thread = post_message(
        service.client("tok-alex"),
        ids["support/general"],
        "x",
        parent_message_id=ids["m1"],
        reply_to_message_id=ids["m2"],
    )

    for response in (in_main, in_thread):
        assert response.status_code == 422
        assert response.json()["code"] == "validation_failed"
        assert response.json()["errors"] == [
            {"path": "body/reply_to_message_id", "message": "not in this thread"}
        ]
    assert sql("SELECT count(*) FROM messages")[0][0] == before
