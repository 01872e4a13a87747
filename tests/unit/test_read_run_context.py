"""The run-context use case with in-memory fakes: its rules without HTTP, SQL or OPA.

The fakes answer the two reads and the two policy questions from memory, so these
tests pin what the use case itself decides: which windows it asks for, that it asks
OPA twice with positions and distinct authors, that it fails closed and answers the
same 404 where decisions.md R4 and R12 say so, and how it assembles ``run_context.v1``. The policy
rules themselves are tested in Rego; the wiring end to end in ``tests/integration``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.domain.run_context import (
    BackfillLimits,
    EarlierRun,
    MessagePlace,
    Position,
    RunSurroundings,
    SessionFacts,
    Window,
)
from app.errors import Forbidden, InternalError, NotFound
from app.opa_client import OpaMalformed
from app.policy import PolicyGateway
from app.policy.gateway import DECISION, RUN_CONTEXT
from app.usecases.authorization import Authorizer
from app.usecases.run_context import ContextLimits, ReadRunContext
from repositories.principals import Actor
from repositories.run_context import CandidateRows, LoadedRun
from tests.unit.fakes import (
    FakeAudit,
    FakeRunContextReads,
    FakeTransport,
    FakeUnit,
    empty_facts,
    stored,
)

LOTSE = Actor(id="lotse", kind="agent", status="active", is_owner=False)
ACTION = "run.context.read"
THREAD, MAIN = "t1", "general-main"
ALLOW = {"allow": True, "reason": "allowed", "status": 200}


def surroundings(**changes: Any) -> RunSurroundings:
    """Lotse's run in thread t1 of general, parent at 40 in the main thread, trigger 8."""
    base = RunSurroundings(
        agent_id="lotse",
        thread_id=THREAD,
        channel_id="general",
        thread_operator_id=None,
        channel_operator_id="lotse",
        channel_backfill_limit=None,
        session=None,
        earlier_run=None,
        trigger=MessagePlace("trigger", Position(THREAD, 8), "general"),
        parent=MessagePlace("parent", Position(MAIN, 40), "general"),
    )
    return replace(base, **changes)


def loaded(**changes: Any) -> LoadedRun:
    """The loaded run (queued, a message run triggered by alex)."""
    base = LoadedRun(
        run_id="r1",
        state="queued",
        trigger_kind="message",
        triggered_by="alex",
        surroundings=surroundings(),
        facts=empty_facts(),
    )
    return replace(base, **changes)


def rows(**changes: Any) -> CandidateRows:
    """The trigger, two thread messages (sam, lotse) and one channel message (writer)."""
    base = CandidateRows(
        trigger=stored("trigger", THREAD, 8, author_id="alex"),
        thread=[
            stored("t6", THREAD, 6, author_id="sam"),
            stored("t7", THREAD, 7, author_id="lotse", origin="agent"),
        ],
        thread_has_older=False,
        channel=[stored("c39", MAIN, 39, author_id="writer")],
        delivered=frozenset(),
        facts=empty_facts(),
    )
    return replace(base, **changes)


def classify(request: Any) -> dict[str, Any]:
    """A stand-in for the policy: everything readable, a minimal class table."""

    def klass(author: dict[str, str]) -> dict[str, str]:
        if author["origin"] == "agent":
            role, trust = (
                ("assistant", "self") if author["id"] == "lotse" else ("other", "unverified")
            )
        elif author["id"] == request["run"].get("triggered_by"):
            role, trust = "user", "trigger"
        else:
            role, trust = "user", "unverified"
        return {"author_id": author["id"], "origin": author["origin"], "role": role, "trust": trust}

    return {
        "readable": [{"thread_id": t["id"], "seqs": t["seqs"]} for t in request["threads"]],
        "trigger_holders": [],
        "classes": [klass(author) for author in request["authors"]],
    }


class World:
    """The use case wired with fakes."""

    def __init__(
        self,
        run: LoadedRun | None,
        candidates: CandidateRows | None = None,
        *,
        decision: dict[str, Any] | None = None,
        evaluate: Any = classify,
        limits: ContextLimits | None = None,
    ) -> None:
        self.reads = FakeRunContextReads(run, candidates)
        self.unit = FakeUnit(run_context=self.reads)
        self.transport = FakeTransport(
            {DECISION: lambda _input: decision or ALLOW, RUN_CONTEXT: evaluate}
        )
        self.audit = FakeAudit()
        policy = PolicyGateway(self.transport)
        self.read = ReadRunContext(
            reader=lambda: self.unit,
            authorizer=Authorizer(policy, self.audit),
            policy=policy,
            limits=limits
            or ContextLimits(
                backfill=BackfillLimits(default=50, maximum=500),
                message_max_bytes=16384,
                total_max_bytes=131072,
            ),
        )

    def paths(self) -> list[str]:
        """The OPA entry points asked, in order."""
        return [path for path, _ in self.transport.asked]

    def sent(self, path: str) -> Any:
        """The input sent to ``path``."""
        return next(request for asked, request in self.transport.asked if asked == path)


def ids(elements: list[dict[str, Any]]) -> list[str]:
    """The message ids of context elements."""
    return [element["message_id"] for element in elements]


def test_an_unknown_run_is_not_found_without_asking_opa() -> None:
    world = World(None)

    with pytest.raises(NotFound):
        world.read(LOTSE, ACTION, "r-unknown")

    assert world.paths() == []
    assert world.audit.denials == []


@pytest.mark.parametrize(
    ("decision", "error"),
    [
        ({"allow": False, "reason": "not_found", "status": 404}, NotFound),
        ({"allow": False, "reason": "not_self", "status": 403}, Forbidden),
    ],
)
def test_a_denial_is_audited_once_and_ends_the_read(
    decision: dict[str, Any], error: type[Exception]
) -> None:
    world = World(loaded(), rows(), decision=decision)

    with pytest.raises(error):
        world.read(LOTSE, ACTION, "r1")

    assert world.paths() == [DECISION]
    assert [(a, act, kind, d.reason) for a, act, kind, d in world.audit.denials] == [
        ("lotse", ACTION, "run", decision["reason"])
    ]
    assert world.reads.plans == []


def test_the_run_is_decided_as_a_run_resource_with_agent_channel_and_state() -> None:
    world = World(loaded(state="waiting_input"), rows())

    world.read(LOTSE, ACTION, "r1")

    assert world.sent(DECISION)["resource"] == {
        "kind": "run",
        "id": "r1",
        "agent_id": "lotse",
        "channel_id": "general",
        "state": "waiting_input",
    }


def test_a_run_without_a_triggering_message_kind_is_an_internal_error() -> None:
    world = World(loaded(trigger_kind="command"))

    with pytest.raises(InternalError):
        world.read(LOTSE, ACTION, "r1")


def test_a_misplaced_trigger_is_the_same_404_as_an_unknown_run() -> None:
    run = loaded(
        surroundings=surroundings(trigger=MessagePlace("x", Position("t-other", 2), "general"))
    )
    world = World(run)

    with pytest.raises(NotFound):
        world.read(LOTSE, ACTION, "r1")

    assert world.reads.plans == []


def test_a_trigger_that_vanished_between_the_two_reads_is_not_found() -> None:
    world = World(loaded(), rows(trigger=None))

    with pytest.raises(NotFound):
        world.read(LOTSE, ACTION, "r1")

    assert world.paths() == [DECISION]


def test_the_windows_asked_for_follow_the_plan_and_the_channels_backfill_limit() -> None:
    run = loaded(
        surroundings=surroundings(
            channel_backfill_limit=20,
            session=SessionFacts("s1", started=True),
            earlier_run=EarlierRun(Position(THREAD, 3)),
        )
    )
    world = World(run, rows(channel=[]))

    body = world.read(LOTSE, ACTION, "r1")

    (plan,) = world.reads.plans
    assert plan.thread == Window(
        THREAD, after_seq=3, before_seq=8, limit=20, exclude_author_id="lotse"
    )
    assert plan.channel is None
    assert plan.delivered_session_id == "s1"
    assert body["context_floor_seq"] == 3
    assert "channel_context" not in body


def test_opa_is_asked_twice_with_positions_by_thread_and_distinct_authors() -> None:
    candidates = rows(
        thread=[stored("t5", THREAD, 5), stored("t6", THREAD, 6), stored("t7", THREAD, 7)]
    )
    world = World(loaded(), candidates)

    world.read(LOTSE, ACTION, "r1")

    assert world.paths() == [DECISION, RUN_CONTEXT]
    sent = world.sent(RUN_CONTEXT)
    assert sent["threads"] == [
        {"id": THREAD, "channel_id": "general", "seqs": [5, 6, 7, 8]},
        {"id": MAIN, "channel_id": "general", "seqs": [39]},
    ]
    assert sent["authors"] == [
        {"id": "alex", "origin": "human"},
        {"id": "writer", "origin": "human"},
        {"id": "sam", "origin": "human"},
    ]
    assert sent["run"] == {
        "id": "r1",
        "agent_id": "lotse",
        "channel_id": "general",
        "thread_id": THREAD,
        "triggered_by": "alex",
        "parent": {"thread_id": MAIN, "seq": 40},
    }
    # The facts cover the actor and every author, for the run's channel only (read with
    # the candidates, in the same statement).
    assert world.reads.asked_facts == [("lotse", "general")]
    assert sent["facts"] is world.reads.rows.facts  # type: ignore[union-attr]


def test_a_run_without_triggering_person_or_parent_leaves_both_out_of_the_input() -> None:
    run = loaded(triggered_by=None, surroundings=surroundings(parent=None))
    world = World(run, rows(channel=[]))

    world.read(LOTSE, ACTION, "r1")

    assert set(world.sent(RUN_CONTEXT)["run"]) == {"id", "agent_id", "channel_id", "thread_id"}


def test_an_element_the_policy_does_not_let_the_agent_read_is_dropped() -> None:
    def hide_t6(request: Any) -> dict[str, Any]:
        answer = classify(request)
        answer["readable"][0]["seqs"] = [s for s in answer["readable"][0]["seqs"] if s != 6]
        return answer

    world = World(loaded(), rows(), evaluate=hide_t6)

    body = world.read(LOTSE, ACTION, "r1")

    assert ids(body["thread_context"]) == ["t7"]


def test_an_unreadable_trigger_is_the_same_404_as_an_unknown_run() -> None:
    def hide_trigger(request: Any) -> dict[str, Any]:
        answer = classify(request)
        answer["readable"][0]["seqs"] = [s for s in answer["readable"][0]["seqs"] if s != 8]
        return answer

    world = World(loaded(), rows(), evaluate=hide_trigger)

    with pytest.raises(NotFound):
        world.read(LOTSE, ACTION, "r1")


def test_a_malformed_batch_fails_closed() -> None:
    def unknown_trust(request: Any) -> dict[str, Any]:
        answer = classify(request)
        answer["classes"][0]["trust"] = "owner"
        return answer

    world = World(loaded(), rows(), evaluate=unknown_trust)

    with pytest.raises(OpaMalformed):
        world.read(LOTSE, ACTION, "r1")


def test_the_answer_carries_role_and_trust_per_element_and_the_trigger_complete() -> None:
    long_trigger = stored("trigger", THREAD, 8, author_id="alex", content="x" * 64)
    world = World(
        loaded(),
        rows(trigger=long_trigger),
        limits=ContextLimits(BackfillLimits(50, 500), message_max_bytes=8, total_max_bytes=1000),
    )

    body = world.read(LOTSE, ACTION, "r1")

    trigger = body["trigger_message"]
    assert (trigger["role"], trigger["trust"]) == ("user", "trigger")
    assert trigger["content_md"] == "x" * 64
    assert "truncated" not in trigger
    assert [(e["role"], e["trust"]) for e in body["thread_context"]] == [
        ("user", "unverified"),
        ("assistant", "self"),
    ]
    assert all(e["truncated"] is True for e in body["thread_context"])
    assert ids(body["channel_context"]) == ["c39"]


def test_the_budget_keeps_the_newest_and_marks_the_gap_in_the_thread() -> None:
    thread = [stored(f"t{s}", THREAD, s, content="y" * 10) for s in range(3, 8)]
    world = World(
        loaded(),
        rows(thread=thread, channel=[stored("c39", MAIN, 39, content="z" * 10)]),
        limits=ContextLimits(BackfillLimits(50, 500), message_max_bytes=100, total_max_bytes=25),
    )

    body = world.read(LOTSE, ACTION, "r1")

    assert ids(body["thread_context"]) == ["t6", "t7"]
    assert body["channel_context"] == []
    assert body["truncated_before_seq"] == 6


def test_already_delivered_marks_only_kept_elements_and_never_the_trigger() -> None:
    run = loaded(
        surroundings=surroundings(
            session=SessionFacts("s1", started=True), earlier_run=EarlierRun(None)
        )
    )
    world = World(run, rows(channel=[], delivered=frozenset({"t6", "trigger"})))

    body = world.read(LOTSE, ACTION, "r1")

    assert [e.get("already_delivered") for e in body["thread_context"]] == [True, None]
    assert "already_delivered" not in body["trigger_message"]


def test_the_read_uses_one_unit_and_releases_it_before_the_second_opa_call() -> None:
    closed_at_evaluation: list[int] = []

    def evaluate(request: Any) -> dict[str, Any]:
        closed_at_evaluation.append(world.unit.closed)
        return classify(request)

    world = World(loaded(), rows(), evaluate=evaluate)

    world.read(LOTSE, ACTION, "r1")

    assert (world.unit.opened, world.unit.closed) == (1, 1)
    assert closed_at_evaluation == [1]
