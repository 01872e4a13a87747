"""Messages API, posting: decided in Rego, idempotent by client_request_id, safe in parallel."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.integration.foundation.api_calls import post_message
from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def test_a_repeated_client_request_id_returns_the_stored_message(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    writer = service.client("tok-writer")

    first = post_message(
        writer, ids["support/general"], "original text", client_request_id="req-42:a"
    )
    again = post_message(
        writer, ids["support/general"], "changed text", client_request_id="req-42:a"
    )

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert again.json()["content_md"] == "original text"
    assert again.json()["client_request_id"] == "req-42:a"
    assert sql("SELECT count(*) FROM messages WHERE client_request_id = 'req-42:a'")[0][0] == 1


def test_the_same_client_request_id_of_another_author_is_a_new_message(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()

    by_writer = post_message(
        service.client("tok-writer"), ids["support/general"], "a", client_request_id="shared-key"
    )
    by_sam = post_message(
        service.client("tok-sam"), ids["support/general"], "b", client_request_id="shared-key"
    )

    assert (by_writer.status_code, by_sam.status_code) == (201, 201)
    assert by_writer.json()["id"] != by_sam.json()["id"]


def test_an_idempotent_replay_is_still_decided_by_the_policy(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    writer = service.client("tok-writer")
    assert (
        post_message(writer, ids["support/general"], "x", client_request_id="k1").status_code == 201
    )
    sql("DELETE FROM grants WHERE subject_principal_id = CAST(:id AS uuid)", id=ids["writer"])

    replay = post_message(writer, ids["support/general"], "x", client_request_id="k1")

    assert replay.status_code == 404


def test_a_person_with_write_posts_and_one_with_read_only_gets_403_no_grant(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    written = post_message(service.client("tok-writer"), ids["support/general"], "by writer")
    read_only = post_message(service.client("tok-reader"), ids["support/general"], "by reader")
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
        posted = post_message(client, ids["support/archive"], "too late")
        listed = client.get(messages_path(ids["support/archive"]))
        assert posted.status_code == 403, token
        assert posted.json()["reason"] == "archived"
        assert listed.status_code == 200
        assert [m["id"] for m in listed.json()["items"]] == [ids["a1"]]


def test_an_agent_posts_with_origin_agent(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    posted = post_message(service.client("tok-texter"), ids["support/general"], "agent note")

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

    posted = post_message(service.client("tok-importer"), ids["support/other"], "imported")

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
