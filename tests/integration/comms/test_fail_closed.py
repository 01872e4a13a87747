"""The relay fails closed on source errors and sends no content to OPA."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import text

from repositories import make_engine
from tests.support.comms_world import CommsWorld
from tests.support.services import OpaServer, free_port

pytestmark = pytest.mark.integration

Start = Callable[..., CommsWorld]


def test_the_relay_answers_503_and_stores_nothing_when_opa_cannot_answer(
    start_comms: Start,
) -> None:
    world = start_comms(opa_url=f"http://127.0.0.1:{free_port()}")

    response = world.relay("sess-1", world.post_call("c1", "n:c1", "Must not be stored."))

    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
    engine = make_engine(world.database_url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(
                text("SELECT count(*) FROM messages WHERE client_request_id = 'n:c1'")
            ).scalar_one()
    finally:
        engine.dispose()
    assert stored == 0


def test_no_message_text_or_session_id_reaches_the_opa_decision_log(
    start_comms: Start, opa_server: OpaServer
) -> None:
    world = start_comms()
    canary = "canary-5be1d0-opa-relay"

    world.relay_ok("sess-1", world.post_call("c1", "n:c1", f"Text {canary}."))
    world.relay_ok("sess-1", world.list_call("c2"))

    decisions = opa_server.read_log()
    assert canary not in decisions
    assert "sess-1" not in decisions
    assert "ws-a1" not in decisions
    assert "runner.comms.relay" in decisions
