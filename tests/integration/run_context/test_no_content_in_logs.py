"""Canary: message content, handles and display names reach only the 200 body (decisions.md S0).

NoContentInLogs. Distinct canary strings go into message contents, author display
names and one author handle; after context reads, denials and an internal error every
sink is searched: the app's log, OPA's console output with its decision logs, every
row of audit_log and the bodies of the denied requests.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.run_context_world import (
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_thread,
    audit_rows,
    base_world,
    dumps,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

CONTENT_CANARIES = {
    "main": "canary-content-main-2c4e71",
    "parent": "canary-content-parent-8d02aa",
    "thread": "canary-content-thread-7f3a19",
    "app": "canary-content-app-51b0cc",
    "trigger": "canary-content-trigger-91bd3e",
}
NAME_CANARIES = {
    "sam": "Sam canary-name-0e9a44",
    "writer": "Writer canary-name-4c2d85",
    "canary-app-77aa": "Canary app canary-name-b81f06",
}
HANDLE_CANARY = "canary-app-77aa"


def _world() -> dict[str, Any]:
    world = base_world()
    for person in world["people"]:
        if person["handle"] in NAME_CANARIES:
            person["display_name"] = NAME_CANARIES[person["handle"]]
    world["apps"].append(
        {
            "handle": HANDLE_CANARY,
            "display_name": NAME_CANARIES[HANDLE_CANARY],
            "token": "tok-canary-app-77aa",
        }
    )
    add_main_messages(
        world,
        GENERAL,
        msg("c1", "writer", f"Main thread: {CONTENT_CANARIES['main']}"),
        msg("p1", "sam", f"Parent: {CONTENT_CANARIES['parent']}"),
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", f"Thread: {CONTENT_CANARIES['thread']}"),
            msg("e2", HANDLE_CANARY, f"App: {CONTENT_CANARIES['app']}"),
            msg("trig", "alex", f"@lotse {CONTENT_CANARIES['trigger']}"),
        ],
    )
    add_run(world, "r1", "t1", "trig")
    add_run(world, "r-cmd", "t1", None, trigger_kind="command", triggered_by=None)
    return world


def _canaries() -> list[str]:
    return [*CONTENT_CANARIES.values(), *NAME_CANARIES.values(), HANDLE_CANARY]


def _opa_log_with(opa_server: Any, needle: str) -> str:
    """OPA's output once it holds ``needle`` (console decision logs are asynchronous)."""
    deadline = time.monotonic() + 10
    text: str = opa_server.read_log()
    while needle not in text and time.monotonic() < deadline:
        time.sleep(0.1)
        text = opa_server.read_log()
    return text


def test_canaries_appear_in_the_200_body_and_in_no_sink(
    start_world: Start,
    opa_server: Any,
    database_url: str,
) -> None:
    rc = start_world(_world())

    ok = rc.context_response("r1")
    denied = [
        rc.context_response("r1", as_="texter"),  # 403 not_self
        rc.context_response("r1", as_="alex"),  # 403 subject_kind_not_allowed
        rc.context_response("r1", as_=HANDLE_CANARY),  # 404: the app cannot read general
        rc.context_response(str(uuid.uuid4())),  # 404 unknown run
        rc.context_response("r-cmd"),  # 500 internal_error, logged
    ]

    assert ok.status_code == 200
    assert [r.status_code for r in denied] == [403, 403, 404, 404, 500]
    for canary in _canaries():
        # The 200 body to the agent, a reader with the right, carries every canary,
        # except the parent message's content, which is never part of the context.
        assert (canary in ok.text) is (canary != CONTENT_CANARIES["parent"]), canary
    app_log = rc.service.log.getvalue()
    opa_log = _opa_log_with(opa_server, rc.id("r-cmd"))
    audit = dumps(audit_rows(database_url))
    bodies = "\n".join(r.text for r in denied)
    # The sinks were written to by this test, so searching them proves something.
    assert rc.id("r1") in opa_log
    assert rc.id("r-cmd") in app_log
    assert rc.id("texter") in audit
    assert rc.id("alex") in audit
    for canary in _canaries():
        assert canary not in app_log, canary
        assert canary not in opa_log, canary
        assert canary not in audit, canary
        assert canary not in bodies, canary
    # Handles of people and agents and their display names stay out of the sinks too.
    for word in ('"alex"', '"lotse"', '"texter"', '"Alex"', '"Lotse"', "@example.com"):
        assert word not in app_log, word
        assert word not in audit, word
        assert word not in bodies, word


def test_the_parent_message_is_not_part_of_the_channel_context(start_world: Start) -> None:
    rc = start_world(_world())

    body = rc.context("r1")

    assert rc.keys_of(body["channel_context"]) == ["c1"]
    assert CONTENT_CANARIES["parent"] not in dumps(body)
