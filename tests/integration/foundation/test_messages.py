"""Messages API: list and post in a channel's main thread or a thread, decided in Rego."""

from __future__ import annotations

import json
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def _post(client: Any, channel_id: str, content: str, **fields: Any) -> Any:
    return client.post(messages_path(channel_id), json={"content_md": content, **fields})


# ------------------------------------------------------------------ listing


def test_a_post_is_listed_last_in_the_main_thread(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    writer = service.client("tok-writer")

    posted = _post(writer, ids["support/general"], "status: export fixed")
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
    posted = [_post(robin, channel, f"note {n}").json()["id"] for n in range(7)]

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


# ------------------------------------------------------------------ threads


def test_posting_with_a_parent_creates_the_thread_once_and_lists_it(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    channel = ids["support/other"]
    parent = _post(robin, channel, "release checklist").json()

    first = _post(robin, channel, "step one", parent_message_id=parent["id"])
    second = _post(robin, channel, "step two", parent_message_id=parent["id"])

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

    posted = _post(
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

    in_thread = _post(robin, ids["support/general"], "x", parent_message_id=ids["m4"])
    other_channel = _post(robin, ids["support/other"], "x", parent_message_id=ids["m1"])
    unknown = _post(robin, ids["support/general"], "x", parent_message_id=str(uuid.uuid4()))

    assert [r.status_code for r in (in_thread, other_channel, unknown)] == [404, 404, 404]


def test_a_reply_to_outside_the_thread_is_422(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    in_main = _post(
        service.client("tok-alex"), ids["support/general"], "x", reply_to_message_id=ids["m4"]
    )
    in_thread = _post(
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


# ------------------------------------------------------------------ idempotency


def test_a_repeated_client_request_id_returns_the_stored_message(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    writer = service.client("tok-writer")

    first = _post(writer, ids["support/general"], "original text", client_request_id="req-42:a")
    again = _post(writer, ids["support/general"], "changed text", client_request_id="req-42:a")

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert again.json()["content_md"] == "original text"
    assert again.json()["client_request_id"] == "req-42:a"
    assert sql("SELECT count(*) FROM messages WHERE client_request_id = 'req-42:a'")[0][0] == 1


def test_the_same_client_request_id_of_another_author_is_a_new_message(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()

    by_writer = _post(
        service.client("tok-writer"), ids["support/general"], "a", client_request_id="shared-key"
    )
    by_sam = _post(
        service.client("tok-sam"), ids["support/general"], "b", client_request_id="shared-key"
    )

    assert (by_writer.status_code, by_sam.status_code) == (201, 201)
    assert by_writer.json()["id"] != by_sam.json()["id"]


def test_an_idempotent_replay_is_still_decided_by_the_policy(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    writer = service.client("tok-writer")
    assert _post(writer, ids["support/general"], "x", client_request_id="k1").status_code == 201
    sql("DELETE FROM grants WHERE subject_principal_id = CAST(:id AS uuid)", id=ids["writer"])

    replay = _post(writer, ids["support/general"], "x", client_request_id="k1")

    assert replay.status_code == 404


# ------------------------------------------------------------------ decisions


def test_a_person_with_write_posts_and_one_with_read_only_gets_403_no_grant(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    written = _post(service.client("tok-writer"), ids["support/general"], "by writer")
    read_only = _post(service.client("tok-reader"), ids["support/general"], "by reader")
    listed = service.client("tok-reader").get(messages_path(ids["support/general"]))

    assert written.status_code == 201
    assert read_only.status_code == 403
    assert read_only.json()["code"] == "forbidden"
    assert read_only.json()["reason"] == "no_grant"
    assert listed.status_code == 200
    assert sql("SELECT count(*) FROM messages")[0][0] == before + 1


def test_an_archived_channel_refuses_posts_with_reason_archived_but_lists(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()

    for token in ("tok-alex", "tok-robin"):
        client = service.client(token)
        posted = _post(client, ids["support/archive"], "too late")
        listed = client.get(messages_path(ids["support/archive"]))
        assert posted.status_code == 403, token
        assert posted.json()["reason"] == "archived"
        assert listed.status_code == 200
        assert [m["id"] for m in listed.json()["items"]] == [ids["a1"]]


def test_an_agent_posts_with_origin_agent(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    posted = _post(service.client("tok-texter"), ids["support/general"], "agent note")

    assert posted.status_code == 201
    assert posted.json()["origin"] == "agent"
    assert posted.json()["author"]["kind"] == "agent"
    assert posted.json()["author"]["id"] == ids["texter"]


def test_an_agent_without_a_level_on_the_channel_cannot_see_it(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()

    response = service.client("tok-texter").get(messages_path(ids["support/other"]))

    assert response.status_code == 404


def test_an_app_posts_with_origin_app_once_granted(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    sql(
        "INSERT INTO grants (subject_principal_id, target_channel_id, level) "
        "VALUES (CAST(:p AS uuid), CAST(:c AS uuid), 'write')",
        p=ids["importer"],
        c=ids["support/other"],
    )
    service = make_service()

    posted = _post(service.client("tok-importer"), ids["support/other"], "imported")

    assert posted.status_code == 201
    assert posted.json()["origin"] == "app"


def test_an_expired_grant_gives_no_level(make_service: Any, ids: dict[str, str], sql: Any) -> None:
    sql(
        "UPDATE grants SET expires_at = now() - interval '1 minute' "
        "WHERE subject_principal_id = CAST(:id AS uuid)",
        id=ids["reader"],
    )
    service = make_service()

    assert (
        service.client("tok-reader").get(messages_path(ids["support/general"])).status_code == 404
    )


# ------------------------------------------------------------------ request validation


def test_malformed_json_is_400_invalid_request(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    writer = service.client("tok-writer")

    for raw in (b'{"content_md": "unterminated', b"not json at all", b"\xff\xfe"):
        response = writer.post(
            messages_path(ids["support/general"]),
            data=raw,
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 400, raw
        assert response.json()["code"] == "invalid_request"
        assert "unterminated" not in response.text


def test_an_empty_body_is_rejected(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-writer").post(
        messages_path(ids["support/general"]),
        data=b"",
        headers={"Content-Type": "application/json"},
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


SECRET = "secret-content-should-never-echo-7c21"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        pytest.param(
            {"content_md": SECRET, "author_id": str(uuid.uuid4())}, "body", id="unknown-field"
        ),
        pytest.param({"content_md": ""}, "body/content_md", id="empty-content"),
        pytest.param({"content_md": 12345}, "body/content_md", id="content-not-a-string"),
        pytest.param({"content_md": [SECRET]}, "body/content_md", id="content-a-list"),
        pytest.param({"client_request_id": SECRET}, "body", id="content-missing"),
        pytest.param(
            {"content_md": SECRET, "client_request_id": SECRET + " with spaces"},
            "body/client_request_id",
            id="bad-client-request-id",
        ),
        pytest.param(
            {"content_md": SECRET, "parent_message_id": SECRET},
            "body/parent_message_id",
            id="parent-not-a-uuid",
        ),
        pytest.param({"content_md": SECRET * 2000}, "body/content_md", id="content-too-long"),
        pytest.param([SECRET], "body", id="array-body"),
    ],
)
def test_a_schema_invalid_body_is_422_naming_the_path_without_echo(
    make_service: Any, ids: dict[str, str], sql: Any, body: Any, path: str
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    response = service.client("tok-writer").post(messages_path(ids["support/general"]), json=body)

    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "validation_failed"
    assert path in [error["path"] for error in problem["errors"]]
    assert SECRET not in response.text
    assert "12345" not in response.text
    assert SECRET not in service.log.getvalue()
    assert sql("SELECT count(*) FROM messages")[0][0] == before


def test_an_unknown_field_is_named_in_the_error(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-writer").post(
        messages_path(ids["support/general"]), json={"content_md": "x", "author_id": "y"}
    )

    assert response.json()["errors"] == [{"path": "body", "message": "unknown field(s): author_id"}]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/channels/not-a-uuid/messages",
        "/api/v1/channels/12345/messages",
        "/api/v1/channels/00000000-0000-0000-0000-00000000000g/messages",
    ],
)
def test_a_non_uuid_path_id_is_422(make_service: Any, ids: dict[str, str], path: str) -> None:
    service = make_service()

    response = service.client("tok-robin").get(path)

    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "validation_failed"
    assert body["errors"] == [{"path": "path/channel_id", "message": "invalid value"}]
    assert "not-a-uuid" not in response.text


def test_a_non_uuid_query_id_is_422(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-robin").get(
        messages_path(ids["support/general"]), params={"parent_message_id": "m1"}
    )

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"path": "query/parent_message_id", "message": "invalid value"}
    ]


def test_an_unknown_query_parameter_is_422(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-robin").get(
        messages_path(ids["support/general"]), params={"author": "robin"}
    )

    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_failed"
    assert body["errors"] == [{"path": "query/author", "message": "unknown parameter"}]


def test_a_wrong_content_type_is_rejected_as_a_problem(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()

    response = service.client("tok-writer").post(
        messages_path(ids["support/general"]),
        data=json.dumps({"content_md": "x"}),
        headers={"Content-Type": "text/plain"},
    )

    assert response.status_code == 415
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "unsupported_media_type"


# ------------------------------------------------------------------ concurrency


def _concurrently(count: int, call: Any) -> list[Any]:
    barrier = threading.Barrier(count)

    def run(index: int) -> Any:
        barrier.wait()
        return call(index)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_concurrent_posts_get_consecutive_thread_seqs(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    channel = ids["support/other"]

    responses = _concurrently(
        8,
        lambda n: service.client("tok-robin").post(
            messages_path(channel), json={"content_md": f"parallel {n}"}
        ),
    )

    assert [r.status_code for r in responses] == [201] * 8
    assert sorted(r.json()["thread_seq"] for r in responses) == list(range(1, 9))


def test_concurrent_posts_with_one_client_request_id_store_one_message(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()

    responses = _concurrently(
        8,
        lambda n: service.client("tok-writer").post(
            messages_path(ids["support/general"]),
            json={"content_md": f"attempt {n}", "client_request_id": "same-key"},
        ),
    )

    assert sorted(r.status_code for r in responses) == [200] * 7 + [201]
    assert len({r.json()["id"] for r in responses}) == 1
    assert len({r.json()["content_md"] for r in responses}) == 1
    assert sql("SELECT count(*) FROM messages WHERE client_request_id = 'same-key'")[0][0] == 1


def test_concurrent_first_posts_under_one_parent_create_one_thread(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()

    responses = _concurrently(
        6,
        lambda n: service.client("tok-alex").post(
            messages_path(ids["support/general"]),
            json={"content_md": f"reply {n}", "parent_message_id": ids["m2"]},
        ),
    )

    assert [r.status_code for r in responses] == [201] * 6
    assert len({r.json()["thread_id"] for r in responses}) == 1
    assert sorted(r.json()["thread_seq"] for r in responses) == list(range(1, 7))
    assert (
        sql("SELECT count(*) FROM threads WHERE parent_message_id = CAST(:m AS uuid)", m=ids["m2"])[
            0
        ][0]
        == 1
    )
