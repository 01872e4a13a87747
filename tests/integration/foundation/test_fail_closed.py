"""Fail closed: OPA or PostgreSQL that cannot answer never turns into an allow."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from repositories.migrate import upgrade
from tests.integration.foundation.conftest import extended_world, messages_path
from tests.support.faults import StubOpa
from tests.support.services import OpaServer, PostgresCluster, free_port, run_sql
from tests.support.world import load

pytestmark = pytest.mark.integration

PROBLEM_KEYS = {
    "type",
    "title",
    "status",
    "code",
    "correlation_id",
    "detail",
    "reason",
    "errors",
    "instance",
}
LEAKS = (
    "Traceback",
    'File "',
    "psycopg2",
    "sqlalchemy",
    "OperationalError",
    "requests.",
    "127.0.0.1",
    "/v1/data",
    "SELECT",
)


def _assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert set(body) <= PROBLEM_KEYS
    assert "items" not in body
    for leak in LEAKS:
        assert leak not in response.text, leak
    return body


def _message_count(sql: Any) -> int:
    return int(sql("SELECT count(*) FROM messages")[0][0])


# ------------------------------------------------------------------- OPA stopped


def test_opa_stopped_mid_test_gives_503_and_no_data(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    opa = OpaServer().start()
    try:
        service = make_service(opa_url=opa.url)
        robin = service.client("tok-robin")
        general = messages_path(ids["support/general"])
        assert robin.post(general, json={"content_md": "before the outage"}).status_code == 201
        assert robin.get(general).status_code == 200
        assert service.client().get("/readyz").status_code == 200
        before = _message_count(sql)

        opa.stop()

        posted = robin.post(general, json={"content_md": "during the outage"})
        _assert_problem(posted, 503, "service_unavailable")
        listed = robin.get(general)
        _assert_problem(listed, 503, "service_unavailable")
        denied = service.client("tok-writer").get(messages_path(ids["marketing/campaigns"]))
        _assert_problem(denied, 503, "service_unavailable")
        admin = robin.patch(f"/api/v1/admin/spaces/{ids['support']}", json={"archived": True})
        _assert_problem(admin, 503, "service_unavailable")
        _assert_problem(service.client().get("/readyz"), 503, "service_unavailable")
        assert service.client().get("/healthz").status_code == 200
        assert _message_count(sql) == before
        assert (
            sql("SELECT archived_at FROM spaces WHERE id = CAST(:id AS uuid)", id=ids["support"])[
                0
            ][0]
            is None
        )
        assert sql("SELECT count(*) FROM audit_log")[0][0] == 0

        opa.start()

        assert service.client().get("/readyz").status_code == 200
        assert robin.post(general, json={"content_md": "after the outage"}).status_code == 201
    finally:
        opa.stop()


def test_opa_without_policies_gives_503(
    make_service: Any, ids: dict[str, str], tmp_path: Any
) -> None:
    empty = tmp_path / "no-policies"
    empty.mkdir()
    opa = OpaServer(policies=empty).start()
    try:
        service = make_service(opa_url=opa.url)

        _assert_problem(
            service.client("tok-robin").get(messages_path(ids["support/general"])),
            503,
            "service_unavailable",
        )
        _assert_problem(service.client().get("/readyz"), 503, "service_unavailable")
    finally:
        opa.stop()


def test_an_unreachable_opa_url_gives_503(make_service: Any, ids: dict[str, str]) -> None:
    service = make_service(opa_url=f"http://127.0.0.1:{free_port()}")

    _assert_problem(
        service.client("tok-robin").get(messages_path(ids["support/general"])),
        503,
        "service_unavailable",
    )
    _assert_problem(service.client().get("/readyz"), 503, "service_unavailable")


# ------------------------------------------------------------ OPA answering garbage


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


BAD_ANSWERS = [
    pytest.param(200, _json({}), 0.0, id="undefined-result"),
    pytest.param(200, _json({"decision_id": "x"}), 0.0, id="undefined-with-other-keys"),
    pytest.param(500, _json({"code": "internal_error", "message": "boom"}), 0.0, id="http-500"),
    pytest.param(400, _json({"code": "invalid_parameter"}), 0.0, id="http-400"),
    pytest.param(200, b"<html>not json</html>", 0.0, id="not-json"),
    pytest.param(200, _json([]), 0.0, id="json-array"),
    pytest.param(200, _json({"result": True}), 0.0, id="boolean-result"),
    pytest.param(
        200,
        _json({"result": {"allow": "yes", "reason": "allowed", "status": 200}}),
        0.0,
        id="allow-not-a-boolean",
    ),
    pytest.param(200, _json({"result": {"allow": True}}), 0.0, id="decision-without-reason"),
    pytest.param(
        200,
        _json({"result": {"allow": False, "reason": "x", "status": 200}}),
        0.0,
        id="deny-with-status-200",
    ),
    pytest.param(
        200,
        _json({"result": {"allow": True, "reason": "allowed", "status": 200}}),
        1.5,
        id="slower-than-the-timeout",
    ),
]


@pytest.mark.parametrize(("status", "body", "delay"), BAD_ANSWERS)
def test_an_opa_answer_that_is_not_a_decision_gives_503_and_writes_nothing(
    make_service: Any, ids: dict[str, str], sql: Any, status: int, body: bytes, delay: float
) -> None:
    with StubOpa(status, body, delay) as stub:
        service = make_service(opa_url=stub.url, **{"opa.timeout_seconds": 0.3})
        robin = service.client("tok-robin")
        before = _message_count(sql)

        posted = robin.post(
            messages_path(ids["support/general"]), json={"content_md": "must not be stored"}
        )
        listed = robin.get(messages_path(ids["support/general"]))
        admin = robin.delete(f"/api/v1/admin/messages/{ids['m1']}")
        ready = service.client().get("/readyz")

        for response in (posted, listed, admin, ready):
            _assert_problem(response, 503, "service_unavailable")
        assert stub.requests >= 4
        assert _message_count(sql) == before
        assert (
            sql("SELECT deleted_at FROM messages WHERE id = CAST(:id AS uuid)", id=ids["m1"])[0][0]
            is None
        )
        assert sql("SELECT count(*) FROM audit_log")[0][0] == 0


# ------------------------------------------------------------------ PostgreSQL


def test_a_database_on_a_closed_port_gives_503_problem_json(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service(
        **{"database.url": f"postgresql://postgres@127.0.0.1:{free_port()}/nothing"}
    )

    for response in (
        service.client("tok-robin").get(messages_path(ids["support/general"])),
        service.client("tok-robin").post(
            messages_path(ids["support/general"]), json={"content_md": "x"}
        ),
        service.client().get("/readyz"),
    ):
        _assert_problem(response, 503, "service_unavailable")
    assert service.client().get("/healthz").status_code == 200


def test_postgresql_stopped_mid_test_gives_503(make_service: Any) -> None:
    cluster = PostgresCluster().start()
    try:
        run_sql(cluster.admin_url, "CREATE DATABASE private_fail_closed")
        url = cluster.url("private_fail_closed")
        upgrade(url)
        ids = load(url, extended_world())
        service = make_service(**{"database.url": url})
        robin = service.client("tok-robin")
        assert robin.get(messages_path(ids["support/general"])).status_code == 200

        cluster.stop()

        _assert_problem(
            robin.get(messages_path(ids["support/general"])), 503, "service_unavailable"
        )
        _assert_problem(
            robin.post(messages_path(ids["support/general"]), json={"content_md": "lost"}),
            503,
            "service_unavailable",
        )
        _assert_problem(service.client().get("/readyz"), 503, "service_unavailable")
    finally:
        cluster.stop()


def test_a_failing_sql_statement_gives_500_internal_error_without_details(
    make_service: Any, ids: dict[str, str], sql: Any
) -> None:
    service = make_service()
    sql("ALTER TABLE messages RENAME TO messages_gone")

    body = _assert_problem(
        service.client("tok-robin").get(messages_path(ids["support/general"])),
        500,
        "internal_error",
    )

    assert "messages_gone" not in json.dumps(body)
    log = service.log.getvalue()
    assert '"error": "ProgrammingError"' in log
    assert "messages_gone" not in log
    assert "Traceback" not in log


def test_an_unknown_id_never_reaches_sql_as_a_non_uuid(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    response = service.client("tok-robin").get(
        f"/api/v1/channels/{uuid.uuid4()}/messages",
        params={"before_message_id": "1' OR '1'='1"},
        validate=False,
    )

    assert response.status_code == 422
