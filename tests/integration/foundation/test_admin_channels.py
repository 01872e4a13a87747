"""Admin facts API, spaces, channels, threads and messages: each change is seen next."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def test_an_archived_space_caps_every_channel_at_read(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, alex = service.client("tok-robin"), service.client("tok-alex")
    general = messages_path(ids["support/general"])

    archived = robin.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": True})

    assert archived.status_code == 200
    assert archived.json() == {"id": ids["support"], "archived": True}
    refused = alex.post(general, json={"content_md": "x"})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "archived"
    assert alex.get(general).status_code == 200

    restored = robin.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": False})

    assert restored.json() == {"id": ids["support"], "archived": False}
    assert alex.post(general, json={"content_md": "x"}).status_code == 201


def test_channel_switches_change_and_others_stay(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")
    path = f"/api/v1/admin/channels/{ids['support/other']}"

    switched = robin.patch(
        path,
        json={
            "history_backfill_limit": 7,
            "auto_thread": True,
            "allow_mentioned_agents": True,
            "operator_agent_id": ids["texter"],
        },
    )

    assert switched.status_code == 200
    assert switched.json() == {
        "id": ids["support/other"],
        "space_id": ids["support"],
        "kind": "regular",
        "archived": False,
        "history_backfill_limit": 7,
        "operator_agent_id": ids["texter"],
        "allow_mentioned_agents": True,
        "auto_thread": True,
    }

    archived = robin.patch(path, json={"archived": True})

    assert archived.json() == {**switched.json(), "archived": True}
    refused = robin.post(messages_path(ids["support/other"]), json={"content_md": "x"})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "archived"

    robin.patch(path, json={"archived": False})

    assert (
        robin.post(messages_path(ids["support/other"]), json={"content_md": "x"}).status_code == 201
    )


def test_a_moved_thread_is_listed_under_its_new_channel(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    moved = robin.post(
        f"/api/v1/admin/threads/{ids['t1']}/move", json={"channel_id": ids["support/other"]}
    )

    assert moved.status_code == 200
    assert moved.json() == {
        "id": ids["t1"],
        "channel_id": ids["support/other"],
        "kind": "thread",
        "parent_message_id": ids["m1"],
    }
    there = robin.get(messages_path(ids["support/other"]), params={"parent_message_id": ids["m1"]})
    assert [m["id"] for m in there.json()["items"]] == [ids["m4"], ids["m5"], ids["m6"]]
    assert {m["channel_id"] for m in there.json()["items"]} == {ids["support/other"]}
    assert (
        robin.get(
            messages_path(ids["support/general"]), params={"parent_message_id": ids["m1"]}
        ).status_code
        == 404
    )
    # Sam holds trigger on support/general only: the moved thread is out of his sight.
    assert (
        service.client("tok-sam")
        .get(messages_path(ids["support/other"]), params={"parent_message_id": ids["m1"]})
        .status_code
        == 404
    )


def test_a_main_thread_cannot_move(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()

    response = service.client("tok-robin").post(
        f"/api/v1/admin/threads/{ids['support/general#main']}/move",
        json={"channel_id": ids["support/other"]},
    )

    assert response.status_code in (409, 422)
    assert (
        service.client("tok-robin")
        .get(messages_path(ids["support/general"]))
        .json()["items"][0]["id"]
        == ids["m1"]
    )


def test_a_deleted_message_is_listed_as_a_tombstone(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    deleted = robin.delete(f"/api/v1/admin/messages/{ids['m2']}")

    assert deleted.status_code == 204
    items = {m["id"]: m for m in robin.get(messages_path(ids["support/general"])).json()["items"]}
    assert items[ids["m2"]]["deleted"] is True
    assert items[ids["m2"]]["content_md"] == ""
    assert items[ids["m2"]]["thread_seq"] == 2
    assert items[ids["m1"]]["deleted"] is False
    assert items[ids["m1"]]["content_md"] != ""
    assert robin.delete(f"/api/v1/admin/messages/{ids['m2']}").status_code == 204
