"""Rate limiting per principal and rate-limit class, limits from configuration."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


def test_the_third_chat_call_within_a_minute_is_429_with_retry_after(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 2})
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])

    first, second = sam.get(general), sam.get(general)
    third = sam.get(general)

    assert (first.status_code, second.status_code) == (200, 200)
    assert third.status_code == 429
    body = third.json()
    assert body["code"] == "rate_limited"
    assert body["status"] == 429
    assert body["correlation_id"] == third.headers["X-Correlation-Id"]
    retry_after = third.headers["Retry-After"]
    assert retry_after.isdigit()
    assert 1 <= int(retry_after) <= 60


def test_posts_and_lists_share_the_chat_class(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 2})
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])

    assert sam.post(general, json={"content_md": "one"}).status_code == 201
    assert sam.get(general).status_code == 200
    limited = sam.post(general, json={"content_md": "three"})

    assert limited.status_code == 429
    assert "three" not in limited.text


def test_another_principal_and_another_class_are_not_limited(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 2})
    general = messages_path(ids["support/general"])
    sam, alex, robin = (service.client(t) for t in ("tok-sam", "tok-alex", "tok-robin"))
    for _ in range(2):
        sam.get(general)
    assert sam.get(general).status_code == 429

    assert [alex.get(general).status_code for _ in range(2)] == [200, 200]
    assert robin.get(general).status_code == 200
    assert (
        robin.patch(
            f"/api/v1/admin/channels/{ids['support/other']}", json={"auto_thread": True}
        ).status_code
        == 200
    )
    assert service.client().get("/healthz").status_code == 200


def test_an_admin_limit_applies_to_the_admin_class(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service(**{"rate_limit.admin.per_minute": 1})
    robin = service.client("tok-robin")
    path = f"/api/v1/admin/channels/{ids['support/other']}"

    assert robin.patch(path, json={"auto_thread": True}).status_code == 200
    limited = robin.patch(path, json={"auto_thread": False})

    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    assert robin.get(messages_path(ids["support/general"])).status_code == 200


def test_a_limit_of_zero_disables_the_class(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 0})
    sam = service.client("tok-sam")

    statuses = {sam.get(messages_path(ids["support/general"])).status_code for _ in range(10)}

    assert statuses == {200}


def test_a_rate_limited_request_is_not_audited_and_writes_nothing(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 1})
    reader = service.client("tok-reader")
    general = messages_path(ids["support/general"])
    reader.get(general)
    before = sql("SELECT count(*) FROM messages")[0][0]

    assert reader.post(general, json={"content_md": "x"}).status_code == 429

    assert sql("SELECT count(*) FROM messages")[0][0] == before
    assert sql("SELECT count(*) FROM audit_log")[0][0] == 0
