"""Authentication (401 Problem JSON) and correlation ids on every response."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration

HEX_ID = re.compile(r"^[0-9a-f]{32}$")


def _assert_unauthenticated(response: Any) -> None:
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "unauthenticated"
    assert body["status"] == 401
    assert body["correlation_id"] == response.headers["X-Correlation-Id"]
    assert "reason" not in body


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-authorization-header"),
        pytest.param({"Authorization": "Basic dXNlcjpwYXNz"}, id="basic-scheme"),
        pytest.param({"Authorization": "Bearer"}, id="bearer-without-token"),
        pytest.param({"Authorization": "Bearer    "}, id="bearer-blank-token"),
        pytest.param({"Authorization": "tok-robin"}, id="token-without-scheme"),
        pytest.param({"Authorization": "Bearer tok-nobody"}, id="unknown-token"),
        pytest.param({"Authorization": "Bearer tok-robin-x"}, id="token-with-suffix"),
    ],
)
def test_a_request_without_a_valid_bearer_token_answers_401_unauthenticated(
    make_service: Any, ids: dict[str, str], headers: dict[str, str]
) -> None:
    service = make_service()
    client = service.client()

    listed = client.get(messages_path(ids["support/general"]), headers=headers)
    posted = client.post(
        messages_path(ids["support/general"]), headers=headers, json={"content_md": "hello"}
    )
    admin = client.patch(
        f"/api/v1/admin/spaces/{ids['support']}", headers=headers, json={"archived": True}
    )

    for response in (listed, posted, admin):
        _assert_unauthenticated(response)


def test_a_401_writes_nothing(make_service: Any, ids: dict[str, str], sql: Any) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    response = service.client("tok-unknown").post(
        messages_path(ids["support/general"]), json={"content_md": "hello"}
    )

    _assert_unauthenticated(response)
    assert sql("SELECT count(*) FROM messages")[0][0] == before
    assert sql("SELECT count(*) FROM audit_log")[0][0] == 0
    assert (
        sql("SELECT archived_at FROM spaces WHERE id = CAST(:id AS uuid)", id=ids["support"])[0][0]
        is None
    )


def test_a_token_of_a_revoked_row_answers_401(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    sql(
        "UPDATE api_tokens SET revoked_at = now() WHERE principal_id = CAST(:id AS uuid)",
        id=ids["sam"],
    )
    service = make_service()

    _assert_unauthenticated(service.client("tok-sam").get(messages_path(ids["support/general"])))


def test_a_safe_incoming_correlation_id_is_echoed_in_header_and_problem_body(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    incoming = "trace-0123456789.abc_DEF"

    ok = service.client("tok-robin").get(
        messages_path(ids["support/general"]), headers={"X-Correlation-Id": incoming}
    )
    problem = service.client().get(
        messages_path(ids["support/general"]), headers={"X-Correlation-Id": incoming}
    )

    assert ok.status_code == 200
    assert ok.headers["X-Correlation-Id"] == incoming
    assert problem.headers["X-Correlation-Id"] == incoming
    assert problem.json()["correlation_id"] == incoming


@pytest.mark.parametrize(
    "incoming",
    [
        pytest.param("short", id="too-short"),
        pytest.param("x" * 65, id="too-long"),
        pytest.param("has spaces in it", id="spaces"),
        pytest.param("<script>alert(1)</script>", id="markup"),
        pytest.param("id;drop-table-x", id="semicolon"),
        pytest.param("", id="empty"),
    ],
)
def test_an_unsafe_incoming_correlation_id_is_replaced(
    make_service: Any, ids: dict[str, str], incoming: str
) -> None:
    service = make_service()

    response = service.client().get(
        messages_path(ids["support/general"]), headers={"X-Correlation-Id": incoming}
    )

    replaced = response.headers["X-Correlation-Id"]
    assert replaced != incoming
    assert HEX_ID.match(replaced)
    assert response.json()["correlation_id"] == replaced


def test_every_response_gets_a_fresh_correlation_id_without_an_incoming_one(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    client = service.client("tok-robin")

    seen = {
        client.get(messages_path(ids["support/general"])).headers["X-Correlation-Id"]
        for _ in range(3)
    }
    seen.add(client.get("/healthz").headers["X-Correlation-Id"])

    assert len(seen) == 4
    assert all(HEX_ID.match(value) for value in seen)


def test_authentication_comes_before_request_validation(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    anonymous = service.client()

    invalid_body = anonymous.post(
        messages_path(ids["support/general"]), json={"content_md": "", "bogus": 1}
    )
    malformed = anonymous.post(
        messages_path(ids["support/general"]),
        data=b"{",
        headers={"Content-Type": "application/json"},
    )
    bad_path = anonymous.get("/api/v1/channels/not-a-uuid/messages")
    bad_query = anonymous.get(messages_path(ids["support/general"]), params={"x": "1"})

    for response in (invalid_body, malformed, bad_path, bad_query):
        _assert_unauthenticated(response)
