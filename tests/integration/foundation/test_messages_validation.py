"""Messages API, request validation: Problem answers that name the path and echo nothing."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration


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
