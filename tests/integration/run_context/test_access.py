"""Who may read which run's context, and in which state (decisions.md R4 and R12).

QueuedRunReadable, NotFoundEquality and ForeignAndHuman, plus the audit of denials.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.client import comparable
from tests.support.run_context_world import (
    CAMPAIGNS,
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_thread,
    audit_columns,
    audit_rows,
    base_world,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

WIDE_WINDOW = 10**9


def _world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "Earlier message."),
            msg("trig", "alex", "@lotse please look."),
        ],
    )
    add_main_messages(world, CAMPAIGNS, msg("mk-trig", "robin", "@texter draft the newsletter."))
    add_run(world, "r1", "t1", "trig")
    add_run(world, "r-marketing", f"{CAMPAIGNS}", "mk-trig", agent="texter", triggered_by="robin")
    return world


@pytest.mark.parametrize("state", ["queued", "running", "waiting_input"])
def test_an_active_run_is_readable_in_every_active_state(start_world: Start, state: str) -> None:
    rc = start_world(_world())
    if state != "queued":
        rc.set_run_state("r1", "running")
    if state == "waiting_input":
        rc.set_run_state("r1", "waiting_input")

    body = rc.context("r1")

    assert body["run_id"] == rc.id("r1")
    assert body["trigger_message"]["message_id"] == rc.id("trig")
    assert rc.keys_of(body["thread_context"]) == ["e1"]


def test_the_context_is_read_before_start_and_again_while_waiting_for_input(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    queued = rc.context("r1")

    rc.set_run_state("r1", "running")
    rc.set_run_state("r1", "waiting_input")
    waiting = rc.context("r1")

    assert queued == waiting


@pytest.mark.parametrize("state", ["succeeded", "failed", "cancelled"])
def test_an_ended_run_answers_404(start_world: Start, state: str) -> None:
    rc = start_world(_world())
    rc.set_run_state("r1", "running")
    rc.set_run_state("r1", state)

    response = rc.context_response("r1")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_unknown_invisible_and_ended_runs_answer_exactly_the_same_404(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    unknown = rc.context_response(str(uuid.uuid4()))
    invisible = rc.context_response("r-marketing")
    rc.set_run_state("r1", "succeeded")
    ended = rc.context_response("r1")

    first = comparable(unknown)
    assert first[0] == 404
    assert (first[1]["code"], first[1]["status"]) == ("not_found", 404)
    assert first[1]["type"] == "https://errors.example.com/problems/not_found"
    assert set(first[1]) <= {"type", "title", "status", "code", "detail"}
    assert first[2]["content-type"] == "application/problem+json"
    assert comparable(invisible) == first
    assert comparable(ended) == first
    assert len(unknown.content) == len(invisible.content) == len(ended.content)
    for response in (unknown, invisible, ended):
        assert response.json()["correlation_id"] == response.headers["X-Correlation-Id"]


def test_a_run_of_another_agent_in_a_readable_channel_is_forbidden_with_not_self(
    start_world: Start,
) -> None:
    rc = start_world(_world())

    response = rc.context_response("r1", as_="texter")

    assert response.status_code == 403
    body = response.json()
    assert (body["code"], body["reason"], body["status"]) == ("forbidden", "not_self", 403)


@pytest.mark.parametrize("who", ["alex", "robin", "importer"])
def test_a_person_or_an_app_is_forbidden_with_subject_kind_not_allowed(
    start_world: Start,
    who: str,
) -> None:
    rc = start_world(_world())
    if who == "importer":
        # Without a level on the channel the run is invisible to the app: 404.
        assert rc.context_response("r1", as_=who).status_code == 404
        rc.grant(None, "importer", f"channel:{GENERAL}", "read")

    response = rc.context_response("r1", as_=who)

    assert response.status_code == 403
    body = response.json()
    assert (body["code"], body["reason"]) == ("forbidden", "subject_kind_not_allowed")


def test_a_request_without_a_token_is_unauthenticated(start_world: Start) -> None:
    rc = start_world(_world())

    response = rc.context_response("r1", as_=None)  # type: ignore[arg-type]

    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_each_denial_is_audited_once_per_window_and_a_read_is_not(
    start_world: Start,
    database_url: str,
) -> None:
    # A window far wider than the test, so no window boundary falls between requests.
    rc = start_world(_world(), **{"audit.deny_aggregate_window": WIDE_WINDOW})
    assert audit_rows(database_url) == []

    assert rc.context_response("r1", as_="texter").status_code == 403
    rows = audit_rows(database_url)
    assert len(rows) == 1
    texter_row = rows[0]
    assert texter_row["actor_id"] == rc.id("texter")
    assert (
        texter_row["action"],
        texter_row["resource_kind"],
        texter_row["reason"],
        texter_row["status"],
        texter_row["count"],
    ) == ("run.context.read", "run", "not_self", 403, 1)

    assert rc.context_response("r1", as_="texter").status_code == 403
    rows = audit_rows(database_url)
    assert len(rows) == 1
    assert rows[0]["id"] == texter_row["id"]
    assert rows[0]["count"] == 2
    assert rows[0]["last_at"] >= texter_row["last_at"]

    assert rc.context_response("r1", as_="alex").status_code == 403
    rows = audit_rows(database_url)
    assert len(rows) == 2
    alex_row = rows[1]
    assert alex_row["actor_id"] == rc.id("alex")
    assert (alex_row["action"], alex_row["reason"], alex_row["status"], alex_row["count"]) == (
        "run.context.read",
        "subject_kind_not_allowed",
        403,
        1,
    )

    # An invisible run is a denial too (not_found), audited the same way.
    assert rc.context_response("r-marketing").status_code == 404
    rows = audit_rows(database_url)
    assert len(rows) == 3
    assert (rows[2]["actor_id"], rows[2]["reason"], rows[2]["status"]) == (
        rc.id("lotse"),
        "not_found",
        404,
    )

    before = audit_rows(database_url)
    rc.context("r1")
    rc.context("r1")
    assert audit_rows(database_url) == before


def test_a_denial_in_the_next_window_starts_a_new_row(
    start_world: Start,
    database_url: str,
) -> None:
    rc = start_world(_world(), **{"audit.deny_aggregate_window": 1})

    assert rc.context_response("r1", as_="texter").status_code == 403
    time.sleep(1.1)
    assert rc.context_response("r1", as_="texter").status_code == 403

    rows = audit_rows(database_url)
    assert [(r["reason"], r["count"]) for r in rows] == [("not_self", 1), ("not_self", 1)]
    assert rows[0]["window_start"] < rows[1]["window_start"]


def test_a_disabled_agent_cannot_read_its_own_run(start_world: Start) -> None:
    rc = start_world(_world())
    rc.patch_principal("lotse", "disabled")

    response = rc.context_response("r1")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    rc.patch_principal("lotse", "active")
    assert rc.context("r1")["run_id"] == rc.id("r1")


def test_the_audit_log_has_no_column_for_content_or_names(
    database_url: str, start_world: Start
) -> None:
    start_world(_world())

    columns = audit_columns(database_url)

    assert columns == [
        "id",
        "actor_id",
        "action",
        "resource_kind",
        "reason",
        "status",
        "window_start",
        "count",
        "first_at",
        "last_at",
        "policy_revision",
        "acting_for",
        "acting_for_run_id",
    ]
    for forbidden in ("content", "handle", "display", "email", "name", "detail", "body"):
        assert not any(forbidden in column for column in columns), forbidden


def test_a_run_without_a_triggering_message_is_an_internal_error(start_world: Start) -> None:
    rc = start_world(_world())
    rc.create_run("r-cmd", "t1", None, trigger_kind="command", triggered_by=None)

    response = rc.context_response("r-cmd")

    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    lines = [json.loads(line) for line in rc.service.log.getvalue().splitlines()]
    errors = [
        line
        for line in lines
        if line.get("msg") == "run context for a run without a triggering message"
    ]
    assert len(errors) == 1
    assert errors[0]["run_id"] == rc.id("r-cmd")
    assert errors[0]["trigger_kind"] == "command"
