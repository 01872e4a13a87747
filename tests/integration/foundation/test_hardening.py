"""Privacy and input hardening found in review: DMs, reply targets, unstorable text,
malformed run ids, and denial audits under a small write pool."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.integration.foundation.conftest import extended_world, messages_path
from tests.support.world import add_channel, load, msg

pytestmark = pytest.mark.integration


def _world_with_dm() -> dict[str, Any]:
    world = extended_world()
    add_channel(
        world,
        "support",
        "sam-writer",
        kind="dm",
        members=["sam", "writer"],
        messages=[msg("dm1", "sam", "Just between us.")],
    )
    return world


def test_a_space_grant_does_not_open_a_dm_in_that_space(
    make_service: Any, database_url: str
) -> None:
    ids = load(database_url, _world_with_dm())
    service = make_service()
    dm = messages_path(ids["support/sam-writer"])

    # alex holds trigger on the whole space support, but is no participant.
    outsider_list = service.client("tok-alex").get(dm)
    outsider_post = service.client("tok-alex").post(dm, json={"content_md": "Hi from Alex"})
    unknown = service.client("tok-alex").get(messages_path("00000000-0000-4000-8000-00000000d00d"))

    assert (outsider_list.status_code, outsider_post.status_code) == (404, 404)
    assert outsider_list.json()["code"] == unknown.json()["code"] == "not_found"
    assert service.client("tok-sam").get(dm).status_code == 200
    assert service.client("tok-writer").post(dm, json={"content_md": "Sure"}).status_code == 201
    holders = service.client("tok-robin").post(
        "/api/v1/authz/trigger-holders",
        json={
            "channel_id": ids["support/sam-writer"],
            "principal_ids": [ids["alex"], ids["sam"], ids["writer"], ids["robin"]],
        },
    )
    assert holders.json()["holders"] == []


def test_a_reply_target_in_a_channel_the_caller_cannot_see_is_an_unknown_message(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    texter = service.client("tok-texter")
    campaign = texter.post(
        messages_path(ids["marketing/campaigns"]), json={"content_md": "Launch on Monday"}
    )
    assert campaign.status_code == 201
    general = messages_path(ids["support/general"])
    writer = service.client("tok-writer")

    foreign = writer.post(
        general, json={"content_md": "Re", "reply_to_message_id": campaign.json()["id"]}
    )
    unknown = writer.post(
        general,
        json={"content_md": "Re", "reply_to_message_id": "00000000-0000-4000-8000-0000000000aa"},
    )
    other_thread = writer.post(
        general,
        json={"content_md": "Re", "reply_to_message_id": ids["m4"]},  # m4 lies in thread t1
    )

    assert (foreign.status_code, unknown.status_code) == (404, 404)
    assert {k: v for k, v in foreign.json().items() if k != "correlation_id"} == {
        k: v for k, v in unknown.json().items() if k != "correlation_id"
    }
    assert other_thread.status_code == 422


@pytest.mark.parametrize("text", ["nul \u0000 inside", "lone \ud800 surrogate"])
def test_text_that_cannot_be_stored_is_a_validation_error(
    make_service: Any, ids: dict[str, str], sql: Any, text: str
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    # json.dumps escapes both, as a client library would send them.
    response = service.client("tok-sam").post(
        messages_path(ids["support/general"]), json={"content_md": text}
    )

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"path": "body/content_md", "message": "NUL or unpaired surrogate"}
    ]
    assert sql("SELECT count(*) FROM messages")[0][0] == before


def test_a_run_id_that_is_not_a_uuid_is_a_validation_error(
    make_service: Any, ids: dict[str, str]
) -> None:
    response = make_service().client("tok-lotse").get("/api/v1/runs/not-a-run/context")

    assert response.status_code == 422
    assert response.json()["errors"] == [{"path": "path/run_id", "message": "invalid value"}]


def test_denials_under_load_do_not_exhaust_a_one_connection_write_pool(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"database.pool_size": 1, "rate_limit.chat.per_minute": 0})
    reader = service.client("tok-reader")
    general = messages_path(ids["support/general"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(
            pool.map(
                lambda i: reader.post(general, json={"content_md": f"n{i}"}).status_code, range(16)
            )
        )

    assert statuses == [403] * 16
    rows = sql("SELECT count FROM audit_log WHERE action = 'message.post'")
    assert [row[0] for row in rows] == [16]
