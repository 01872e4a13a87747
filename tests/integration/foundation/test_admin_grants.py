"""Admin facts API, grants and principals: each change decides the next request."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.foundation.api_calls import grant_body
from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def test_a_created_grant_lets_the_grantee_list_and_its_deletion_takes_it_back(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, newbie = service.client("tok-robin"), service.client("tok-newbie")
    general = messages_path(ids["support/general"])
    assert newbie.get(general).status_code == 404

    created = robin.post(
        "/api/v1/admin/grants",
        json=grant_body(ids["newbie"], "channel", ids["support/general"], "read"),
    )

    assert created.status_code == 201
    grant = created.json()
    assert grant["subject"] == {"kind": "principal", "id": ids["newbie"]}
    assert grant["target"] == {"kind": "channel", "id": ids["support/general"]}
    assert grant["level"] == "read"
    assert "expires_at" not in grant
    assert newbie.get(general).status_code == 200
    assert newbie.post(general, json={"content_md": "x"}).json()["reason"] == "no_grant"

    deleted = robin.delete(f"/api/v1/admin/grants/{grant['id']}")

    assert deleted.status_code == 204
    assert deleted.content == b""
    assert newbie.get(general).status_code == 404
    assert robin.delete(f"/api/v1/admin/grants/{grant['id']}").status_code == 404


def test_a_space_grant_covers_every_channel_of_the_space(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, newbie = service.client("tok-robin"), service.client("tok-newbie")

    created = robin.post(
        "/api/v1/admin/grants", json=grant_body(ids["newbie"], "space", ids["support"], "write")
    )

    assert created.status_code == 201
    for channel in ("support/general", "support/other"):
        assert (
            newbie.post(messages_path(ids[channel]), json={"content_md": "hello"}).status_code
            == 201
        )
    assert newbie.get(messages_path(ids["marketing/campaigns"])).status_code == 404


def test_an_expired_grant_is_stored_but_gives_nothing(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    body = {
        **grant_body(ids["newbie"], "channel", ids["support/general"], "manage"),
        "expires_at": "2020-01-01T00:00:00Z",
    }

    created = service.client("tok-robin").post("/api/v1/admin/grants", json=body)

    assert created.status_code == 201
    assert created.json()["expires_at"] == "2020-01-01T00:00:00Z"
    assert (
        service.client("tok-newbie").get(messages_path(ids["support/general"])).status_code == 404
    )


def test_a_disabled_person_gets_404_on_lists_until_reactivated(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    robin, sam = service.client("tok-robin"), service.client("tok-sam")
    general = messages_path(ids["support/general"])
    assert sam.get(general).status_code == 200

    disabled = robin.patch(f"/api/v1/admin/principals/{ids['sam']}", json={"status": "disabled"})

    assert disabled.status_code == 200
    assert disabled.json() == {
        "id": ids["sam"],
        "kind": "user",
        "status": "disabled",
        "is_owner": False,
    }
    assert sam.get(general).status_code == 404
    assert sam.post(general, json={"content_md": "x"}).status_code == 404

    robin.patch(f"/api/v1/admin/principals/{ids['sam']}", json={"status": "active"})

    assert sam.get(general).status_code == 200


def test_a_disabled_owner_loses_the_admin_api(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    robin = service.client("tok-robin")

    assert (
        robin.patch(
            f"/api/v1/admin/principals/{ids['robin']}", json={"status": "disabled"}
        ).status_code
        == 200
    )

    again = robin.patch(f"/api/v1/admin/principals/{ids['robin']}", json={"status": "active"})
    assert again.status_code == 403
    assert again.json()["reason"] == "not_owner"
