"""Denials are audited, aggregated per (actor, action, resource kind, reason) and window."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.integration.foundation.conftest import extended_world, messages_path

pytestmark = pytest.mark.integration

AUDIT_ROWS = (
    "SELECT actor_id::text, action, resource_kind, reason, status, count, window_start "
    "FROM audit_log ORDER BY first_at, id"
)
LONG_WINDOW = 3600


def _away_from_window_edge(window: int, margin: float = 3.0) -> None:
    """Sleep past the next window boundary when it is less than ``margin`` away."""
    left = window - time.time() % window
    if left < margin:
        time.sleep(left + 0.2)


def test_a_repeated_denial_shares_one_audit_row_with_a_count(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"audit.deny_aggregate_window": LONG_WINDOW})
    reader = service.client("tok-reader")
    _away_from_window_edge(LONG_WINDOW)

    for _ in range(2):
        response = reader.post(
            messages_path(ids["support/general"]), json={"content_md": "denied post"}
        )
        assert response.status_code == 403
        assert response.json()["reason"] == "no_grant"

    rows = sql(AUDIT_ROWS)
    assert [row[:6] for row in rows] == [
        (ids["reader"], "message.post", "channel", "no_grant", 403, 2)
    ]


def test_a_second_actor_gets_its_own_audit_row(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"audit.deny_aggregate_window": LONG_WINDOW})
    _away_from_window_edge(LONG_WINDOW)

    service.client("tok-reader").post(
        messages_path(ids["support/general"]), json={"content_md": "a"}
    )
    service.client("tok-writer").post(
        messages_path(ids["marketing/campaigns"]), json={"content_md": "b"}
    )
    service.client("tok-writer").post(
        messages_path(ids["marketing/campaigns"]), json={"content_md": "c"}
    )

    rows = {row[0]: row[1:6] for row in sql(AUDIT_ROWS)}
    assert rows == {
        ids["reader"]: ("message.post", "channel", "no_grant", 403, 1),
        ids["writer"]: ("message.post", "channel", "not_found", 404, 2),
    }


def test_a_different_action_or_reason_of_the_same_actor_gets_its_own_row(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"audit.deny_aggregate_window": LONG_WINDOW})
    _away_from_window_edge(LONG_WINDOW)
    writer = service.client("tok-writer")

    assert writer.get(messages_path(ids["marketing/campaigns"])).status_code == 404
    assert (
        writer.post(messages_path(ids["marketing/campaigns"]), json={"content_md": "x"}).status_code
        == 404
    )
    assert (
        writer.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": True}).status_code
        == 403
    )

    rows = sorted(row[1:6] for row in sql(AUDIT_ROWS))
    assert rows == [
        ("admin.spaces.update", "instance", "not_owner", 403, 1),
        ("message.list", "channel", "not_found", 404, 1),
        ("message.post", "channel", "not_found", 404, 1),
    ]


def test_a_denial_after_the_window_starts_a_new_row(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service(**{"audit.deny_aggregate_window": 1})
    reader = service.client("tok-reader")

    reader.post(messages_path(ids["support/general"]), json={"content_md": "first"})
    time.sleep(1.2)
    reader.post(messages_path(ids["support/general"]), json={"content_md": "second"})

    rows = sql(AUDIT_ROWS)
    assert len(rows) == 2
    assert [row[:6] for row in rows] == [
        (ids["reader"], "message.post", "channel", "no_grant", 403, 1)
    ] * 2
    assert rows[0][6] < rows[1][6]


def test_an_allowed_request_writes_no_audit_row(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()

    assert (
        service.client("tok-writer")
        .post(messages_path(ids["support/general"]), json={"content_md": "allowed"})
        .status_code
        == 201
    )
    assert (
        service.client("tok-reader").get(messages_path(ids["support/general"])).status_code == 200
    )
    assert (
        service.client("tok-robin")
        .patch(f"/api/v1/admin/channels/{ids['support/other']}", json={"auto_thread": True})
        .status_code
        == 200
    )

    assert sql(AUDIT_ROWS) == []


def test_a_rejected_request_that_reaches_no_decision_writes_no_audit_row(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()

    service.client().get(messages_path(ids["support/general"]))
    service.client("tok-writer").post(
        messages_path(ids["support/general"]),
        data=b"{",
        headers={"Content-Type": "application/json"},
    )

    assert sql(AUDIT_ROWS) == []


def test_audit_rows_hold_no_handle_display_name_email_or_content(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    secret = "audit-canary-content-4f1e"
    service.client("tok-reader").post(
        messages_path(ids["support/general"]), json={"content_md": secret}
    )
    service.client("tok-writer").get(messages_path(ids["marketing/campaigns"]))
    service.client("tok-alex").delete(f"/api/v1/admin/messages/{ids['m1']}")

    rows = sql("SELECT row_to_json(a)::text FROM audit_log a")
    assert len(rows) == 3
    dump = " ".join(row[0] for row in rows).lower()
    forbidden = {secret}
    for person in extended_world()["people"]:
        forbidden |= {person["handle"], person["display_name"], person.get("email", "")}
    for agent in extended_world()["agents"]:
        forbidden |= {agent["handle"], agent["display_name"]}
    for word in sorted(forbidden - {""}):
        assert word.lower() not in dump, word
    columns = {
        row[0]
        for row in sql(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'audit_log'"
        )
    }
    assert columns == {
        "id",
        "actor_id",
        "action",
        "resource_kind",
        "reason",
        "status",
        "policy_revision",
        "window_start",
        "count",
        "first_at",
        "last_at",
        "acting_for",
        "acting_for_run_id",
    }
