"""Logs and OPA decision logs carry no token, content, handle or display name (canaries)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from app.logs import configure_logging
from tests.integration.foundation.conftest import extended_world, messages_path
from tests.support.services import OpaServer
from tests.support.world import add_grant, add_person, load, set_display_name

pytestmark = pytest.mark.integration

HANDLE = "zq-canary-handle"
DISPLAY = "Zq Canary Display"
EMAIL = "zq-canary-mail@example.com"
TOKEN = "tok-zq-canary-secret"
CONTENT = "zq-canary-content"
AGENT_DISPLAY = "Zq Canary Agent Display"


def _canary_world() -> dict[str, Any]:
    world = extended_world()
    add_person(world, HANDLE, display_name=DISPLAY, email=EMAIL, token=TOKEN)
    set_display_name(world, "texter", AGENT_DISPLAY)
    add_grant(world, HANDLE, "channel:support/general", "write")
    return world


def _canaries() -> list[str]:
    return [HANDLE, DISPLAY, EMAIL, TOKEN, CONTENT, AGENT_DISPLAY, "tok-zq-unknown"]


@pytest.fixture
def sqlalchemy_logging() -> Iterator[None]:
    """Let SQLAlchemy log every statement with its parameters (as an operator might)."""
    engine_logger = logging.getLogger("sqlalchemy.engine")
    previous = engine_logger.level
    engine_logger.setLevel(logging.INFO)
    yield
    engine_logger.setLevel(previous)


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
@pytest.mark.usefixtures("sqlalchemy_logging")
def test_no_canary_reaches_the_app_log_or_the_opa_decision_log(
    make_service: Any, database_url: str, opa_server: OpaServer, sql: Any, level: str
) -> None:
    ids = load(database_url, _canary_world())
    service = make_service()
    configure_logging(level, service.log)
    canary = service.client(TOKEN)
    general = messages_path(ids["support/general"])

    posted = canary.post(general, json={"content_md": f"{CONTENT} 1", "client_request_id": "zq-1"})
    assert posted.status_code == 201
    assert (
        canary.post(
            general, json={"content_md": f"{CONTENT} 2", "client_request_id": "zq-1"}
        ).status_code
        == 200
    )
    listed = canary.get(general)
    assert DISPLAY in listed.text
    assert (
        canary.post(
            general, json={"content_md": f"{CONTENT} 3", "parent_message_id": ids["m1"]}
        ).status_code
        == 201
    )
    assert (
        service.client("tok-texter")
        .post(general, json={"content_md": f"{CONTENT} agent"})
        .status_code
        == 201
    )
    assert (
        service.client("tok-reader")
        .post(general, json={"content_md": f"{CONTENT} denied"})
        .status_code
        == 403
    )
    assert canary.get(messages_path(ids["marketing/campaigns"])).status_code == 404
    assert canary.post(general, json={"content_md": CONTENT, "bogus": CONTENT}).status_code == 422
    assert canary.post(general, json={"content_md": CONTENT * 7000}).status_code == 422
    assert (
        canary.post(
            general,
            data=f'{{"content_md": "{CONTENT}'.encode(),
            headers={"Content-Type": "application/json"},
        ).status_code
        == 400
    )
    assert canary.get(general, params={CONTENT: CONTENT}).status_code == 422
    assert canary.get(f"/api/v1/channels/{CONTENT}/messages").status_code == 422
    assert service.client("tok-zq-unknown").get(general).status_code == 401
    robin = service.client("tok-robin")
    assert robin.delete(f"/api/v1/admin/messages/{posted.json()['id']}").status_code == 204
    assert (
        robin.patch(
            f"/api/v1/admin/principals/{ids[HANDLE]}", json={"status": "disabled"}
        ).status_code
        == 200
    )
    assert canary.get(general).status_code == 404
    sql("ALTER TABLE threads RENAME TO threads_gone")
    assert robin.post(general, json={"content_md": f"{CONTENT} fails"}).status_code == 500

    log = service.log.getvalue()
    assert '"logger": "sqlalchemy.engine.Engine"' in log
    assert '"msg": "request failed"' in log
    opa_log = opa_server.read_log()
    for value in _canaries():
        assert value not in log, value
        assert value.lower() not in log.lower(), value
        assert value not in opa_log, value
