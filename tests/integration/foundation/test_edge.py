"""The HTTP edge as a hostile client meets it (issue 7): authenticate before the body is
read, bounded input, no 500 for a client mistake, 405 with Allow, Problem JSON and the
correlation header for everything the app and its HTTP server reject."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path
from tests.support.raw_http import RawResponse, exchange

pytestmark = pytest.mark.integration

UUID = "00000000-0000-4000-8000-00000000e1e1"


def _assert_raw_problem(response: RawResponse, status: int, code: str) -> dict[str, Any]:
    """A response the validating client cannot check: Problem JSON with the header."""
    assert response.status == status, response.body[:300]
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert body["correlation_id"] == response.headers["x-correlation-id"]
    return body


def _head(method: str, target: str, *headers: str) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Host: api.example.com", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


# ------------------------------------------------------ authentication comes first


def test_a_huge_body_with_a_bogus_token_is_401_without_being_read(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    path = messages_path(ids["support/general"])
    started = time.monotonic()

    response = exchange(
        service.base_url,
        _head(
            "POST",
            path,
            "Authorization: Bearer tok-nobody",
            "Content-Type: application/json",
            f"Content-Length: {100 * 1024 * 1024}",
        ),
        (b"[" * 65536 for _ in range(1600)),  # 100 MiB if the server kept reading
    )

    body = _assert_raw_problem(response, 401, "unauthenticated")
    assert response.headers["www-authenticate"] == "Bearer"
    assert "detail" not in body or "schema" not in body["detail"]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Authorization": "Bearer tok-nobody"}, id="bogus-token"),
        pytest.param({}, id="no-token"),
    ],
)
def test_an_unauthenticated_request_learns_nothing_about_the_schema(
    make_service: Any, ids: dict[str, str], headers: dict[str, str]
) -> None:
    client = make_service().client()
    general = messages_path(ids["support/general"])

    answers = [
        client.post(general, headers=headers, json={"content_md": "", "bogus": 1}),
        client.post(general, headers=headers, data=b"[" * 5000, validate=False),
        client.post(general, headers={**headers, "Content-Type": "text/plain"}, data=b"x"),
        client.get(general, headers=headers, params={"limit": "+5", "x": "1"}),
        client.get(f"/api/v1/runs/{UUID[:-1]}x/context", headers=headers),
    ]

    for response in answers:
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert response.json()["code"] == "unauthenticated"


def test_the_rate_limit_is_taken_before_the_body_is_validated(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service(**{"rate_limit.chat.per_minute": 1})
    sam = service.client("tok-sam")
    general = messages_path(ids["support/general"])

    assert sam.get(general).status_code == 200
    limited = sam.post(general, json={"bogus": 1})

    assert limited.status_code == 429
    assert limited.json()["code"] == "rate_limited"


def test_authentication_stays_one_sql_statement(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service()
    # The first use of a pooled connection also prepares the statement (ADR 0010).
    service.client("tok-sam").post(messages_path(ids["support/general"]), json={})
    before = service.sql_statements

    response = service.client("tok-sam").post(messages_path(ids["support/general"]), json={})

    assert response.status_code == 422
    assert service.sql_statements - before == 1


# ----------------------------------------------------------------- body size


def test_a_declared_length_above_the_limit_is_413_before_the_body_arrives(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service(**{"http.max_body_bytes": 4096})

    response = exchange(
        service.base_url,
        _head(
            "POST",
            messages_path(ids["support/general"]),
            "Authorization: Bearer tok-sam",
            "Content-Type: application/json",
            f"Content-Length: {100 * 1024 * 1024}",
        ),
    )

    _assert_raw_problem(response, 413, "payload_too_large")


def test_a_chunked_body_is_refused_without_being_read(
    make_service: Any, ids: dict[str, str]
) -> None:
    # Connexion needs Content-Length for a body; without it the request is refused
    # before a byte of the (here endless) body is read. The chunk counting of the body
    # limit is covered by the unit tests.
    service = make_service()
    chunk = b'{"content_md": "' + b"x" * 1000
    framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    started = time.monotonic()

    response = exchange(
        service.base_url,
        _head(
            "POST",
            messages_path(ids["support/general"]),
            "Authorization: Bearer tok-sam",
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
        ),
        (framed for _ in range(100_000)),
    )

    _assert_raw_problem(response, 400, "invalid_request")
    assert time.monotonic() - started < 5


def test_a_body_at_the_limit_is_accepted(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service(**{"http.max_body_bytes": 4096})
    padding = "x" * (4096 - len('{"content_md": ""}'))

    response = service.client("tok-sam").post(
        messages_path(ids["support/general"]),
        data=f'{{"content_md": "{padding}"}}'.encode(),
        headers={"Content-Type": "application/json"},
    )

    assert response.status_code == 201


# ---------------------------------------------------------- no 500 for a mistake


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"content_md": ' + b"[" * 1000 + b"]" * 1000 + b"}", id="nested-1000"),
        pytest.param(b'{"content_md": "x", "n": ' + b"7" * 4301 + b"}", id="int-4301-digits"),
        pytest.param(b'{"content_md": "x", "n": NaN}', id="nan"),
    ],
)
def test_a_body_the_parser_refuses_is_400(
    make_service: Any, ids: dict[str, str], sql: Any, raw: bytes
) -> None:
    service = make_service()
    before = sql("SELECT count(*) FROM messages")[0][0]

    response = service.client("tok-sam").post(
        messages_path(ids["support/general"]),
        data=raw,
        headers={"Content-Type": "application/json"},
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert sql("SELECT count(*) FROM messages")[0][0] == before


def test_an_integer_too_long_for_the_contract_is_400_not_a_database_error(
    make_service: Any, ids: dict[str, str]
) -> None:
    response = (
        make_service()
        .client("tok-robin")
        .patch(
            f"/api/v1/admin/channels/{ids['support/general']}",
            data=b'{"history_backfill_limit": ' + b"9" * 40 + b"}",
            headers={"Content-Type": "application/json"},
        )
    )

    assert response.status_code == 400


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-content-type"),
        pytest.param({"Content-Type": "text/plain"}, id="text-plain"),
        pytest.param({"Content-Type": "application/json; charset=latin-1"}, id="latin-1"),
        pytest.param({"Content-Type": "application/x-www-form-urlencoded"}, id="form"),
    ],
)
def test_a_body_without_json_content_type_is_415(
    make_service: Any, ids: dict[str, str], headers: dict[str, str]
) -> None:
    client = make_service().client("tok-sam")
    client.session.headers.pop("Content-Type", None)

    response = client.post(
        messages_path(ids["support/general"]), data=b'{"content_md": "hi"}', headers=headers
    )

    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_a_uuid_with_a_trailing_newline_is_422_in_path_query_and_body(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    sam = service.client("tok-sam")
    general = ids["support/general"]
    message = ids["m1"]

    # Starlette routes no path with a line feed in it: an unknown path.
    in_path = sam.get(f"/api/v1/channels/{general}%0A/messages", validate=False)
    in_query = sam.get(messages_path(general), params={"before_message_id": f"{message}\n"})
    in_body = sam.post(
        messages_path(general), json={"content_md": "Re", "reply_to_message_id": f"{message}\n"}
    )
    in_list = service.client("tok-robin").post(
        "/api/v1/authz/trigger-holders",
        json={"channel_id": general, "principal_ids": [f"{ids['sam']}\n"]},
    )
    in_pattern = sam.post(
        messages_path(general), json={"content_md": "x", "client_request_id": "req-1\n"}
    )

    assert [r.status_code for r in (in_query, in_body, in_list, in_pattern)] == [422] * 4
    assert in_query.json()["errors"] == [
        {"path": "query/before_message_id", "message": "invalid value"}
    ]
    assert in_path.status_code == 404
    assert in_path.json()["code"] == "not_found"
    assert in_path.headers["X-Correlation-Id"] == in_path.json()["correlation_id"]


@pytest.mark.parametrize(
    "expires_at",
    [
        pytest.param("2026-01-01T00:00:00+16:00", id="offset-beyond-15-59"),
        pytest.param("0000-06-01T00:00:00Z", id="year-0"),
        pytest.param("0001-01-01T00:00:00+01:00", id="before-year-1-in-utc"),
        pytest.param("2026-01-01T00:00:00", id="no-offset"),
    ],
)
def test_a_timestamp_postgresql_cannot_store_is_422(
    make_service: Any, ids: dict[str, str], expires_at: str
) -> None:
    response = (
        make_service()
        .client("tok-robin")
        .post(
            "/api/v1/admin/grants",
            json={
                "subject": {"kind": "principal", "id": ids["sam"]},
                "target": {"kind": "channel", "id": ids["support/general"]},
                "level": "read",
                "expires_at": expires_at,
            },
        )
    )

    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "body/expires_at"


def test_a_timestamp_at_the_edge_of_the_range_is_stored(
    make_service: Any, ids: dict[str, str]
) -> None:
    response = (
        make_service()
        .client("tok-robin")
        .post(
            "/api/v1/admin/grants",
            json={
                "subject": {"kind": "principal", "id": ids["sam"]},
                "target": {"kind": "channel", "id": ids["support/general"]},
                "level": "read",
                "expires_at": "9999-12-30T12:00:00-15:59",
            },
        )
    )

    assert response.status_code == 201


@pytest.mark.parametrize("limit", ["+5", " 5", "5_0", "\u0663", "\uff15", "0x5", "5.0"])
def test_a_query_integer_is_plain_ascii_digits(
    make_service: Any, ids: dict[str, str], limit: str
) -> None:
    response = (
        make_service()
        .client("tok-sam")
        .get(messages_path(ids["support/general"]), params={"limit": limit})
    )

    assert response.status_code == 422
    assert response.json()["errors"] == [{"path": "query/limit", "message": "invalid value"}]


# ---------------------------------------------------------------- HTTP conformance


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("TRACE", "/healthz", "GET, HEAD"),
        ("OPTIONS", "/healthz", "GET, HEAD"),
        ("PUT", "/api/v1/channels/{general}/messages", "GET, HEAD, POST"),
        ("DELETE", "/api/v1/channels/{general}/messages", "GET, HEAD, POST"),
        ("GET", "/api/v1/admin/grants", "POST"),
        ("PATCH", "/api/v1/runs/{uuid}/context", "GET, HEAD"),
    ],
)
def test_an_undeclared_method_is_405_with_allow(
    make_service: Any, ids: dict[str, str], method: str, path: str, allow: str
) -> None:
    service = make_service()
    target = path.format(general=ids["support/general"], uuid=UUID)

    response = exchange(service.base_url, _head(method, target, "Content-Length: 0"))

    _assert_raw_problem(response, 405, "method_not_allowed")
    assert response.headers["allow"] == allow


def test_an_unknown_path_stays_404(make_service: Any) -> None:
    response = exchange(make_service().base_url, _head("TRACE", "/api/v1/nowhere"))

    _assert_raw_problem(response, 404, "not_found")


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(_head("GET", "/healthz?" + "q" * (1024 * 1024)), id="1MB-url"),
        pytest.param(
            _head("GET", "/healthz?" + "&".join(f"p{i}=1" for i in range(10_000))),
            id="10000-query-parameters",
        ),
        pytest.param(
            _head("GET", "/healthz", *[f"X-Pad-{i}: {'v' * 100}" for i in range(700)]),
            id="headers-70KB",
        ),
        pytest.param(
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n", id="nul-in-header"
        ),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n", id="space-in-header-name"),
        pytest.param(b"NOT AN HTTP REQUEST\r\n\r\n", id="garbage"),
    ],
)
def test_what_the_http_server_rejects_is_problem_json_with_a_correlation_id(
    make_service: Any, head: bytes
) -> None:
    response = exchange(make_service().base_url, head)

    body = _assert_raw_problem(response, 400, "invalid_request")
    assert "q" * 100 not in str(body)


def test_the_interactive_api_documentation_is_served(make_service: Any) -> None:
    service = make_service()

    page = exchange(service.base_url, _head("GET", "/ui/"))
    spec = exchange(service.base_url, _head("GET", "/openapi.json"))

    assert page.status == 200
    assert b"swagger-ui" in page.body.lower()
    assert "x-correlation-id" in page.headers
    assert spec.status == 200
    assert spec.json()["info"]["title"] == "Agent authorization and context service"
