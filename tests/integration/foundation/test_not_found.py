"""An unknown channel and an invisible one answer the same 404."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path
from tests.support.client import comparable

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_unknown_and_an_invisible_channel_answer_equal_404s(
    make_service: Any, ids: dict[str, str], method: str
) -> None:
    service = make_service()
    writer = service.client("tok-writer")
    kwargs: dict[str, Any] = {"json": {"content_md": "hi"}} if method == "POST" else {}

    invisible = writer.request(method, messages_path(ids["marketing/campaigns"]), **kwargs)
    unknown = writer.request(method, messages_path(str(uuid.uuid4())), **kwargs)

    assert invisible.status_code == 404
    assert comparable(invisible) == comparable(unknown)
    _, body, _ = comparable(invisible)
    assert body["code"] == "not_found"
    assert "reason" not in body
    assert "detail" not in body


def test_an_unknown_and_an_invisible_thread_parent_answer_equal_404s(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    texter = service.client("tok-texter")
    # marketing/campaigns is visible to texter; m1 lies in support/general, a channel
    # texter can read, but not in this channel; an unknown id lies nowhere.
    wrong_channel = texter.get(
        messages_path(ids["marketing/campaigns"]), params={"parent_message_id": ids["m1"]}
    )
    unknown = texter.get(
        messages_path(ids["marketing/campaigns"]), params={"parent_message_id": str(uuid.uuid4())}
    )

    assert wrong_channel.status_code == 404
    assert comparable(wrong_channel) == comparable(unknown)


def test_an_invisible_channel_is_404_for_a_person_without_any_grant(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    newbie = service.client("tok-newbie")

    for channel in ("support/general", "support/other", "marketing/campaigns", "support/archive"):
        assert newbie.get(messages_path(ids[channel])).status_code == 404


def test_an_inactive_person_sees_nothing(make_service: Any, ids: dict[str, str], sql: Any) -> None:
    sam = make_service().client("tok-sam")
    assert sam.get(messages_path(ids["support/general"])).status_code == 200
    for status in ("pending", "disabled", "deleted"):
        sql(
            "UPDATE principals SET status = :status WHERE id = CAST(:id AS uuid)",
            status=status,
            id=ids["sam"],
        )
        listed = sam.get(messages_path(ids["support/general"]))
        posted = sam.post(messages_path(ids["support/general"]), json={"content_md": "x"})
        assert (listed.status_code, posted.status_code) == (404, 404), status
