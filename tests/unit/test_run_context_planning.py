"""Unit tests of run-context planning in :mod:`app.domain.run_context`.

One test per case of the run-context ticket on the plan: the session mode and context
floor of a run (:func:`plan_context`), and the thread and channel windows it reads
(:func:`plan_windows`). Cutting and budgets are in ``test_run_context_shaping.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.domain.run_context import (
    BackfillLimits,
    ContextPlan,
    EarlierRun,
    MessagePlace,
    PlanFacts,
    Position,
    RunSurroundings,
    SessionFacts,
    SessionMode,
    TriggerOutOfReach,
    Window,
    plan_context,
    plan_windows,
)

THREAD_ID = "thread-allgemein-1"
MAIN_THREAD_ID = "thread-allgemein-main"
SESSION_ID = "session-1"


def started_session() -> SessionFacts:
    """A session that has started, as after a first run that began work."""
    return SessionFacts(id=SESSION_ID, started=True)


class TestPlanContext:
    """Session mode, floor, own messages and channel context per session state."""

    def test_a_guest_run_has_floor_zero_includes_own_messages_and_wants_channel_context(
        self,
    ) -> None:
        # A started session with an earlier run belongs to the operator, not the guest, so
        # it must not turn a guest run into a resume.
        facts = PlanFacts(
            agent_operates_thread=False,
            session=started_session(),
            thread_id=THREAD_ID,
            earlier_run=EarlierRun(Position(THREAD_ID, 7)),
        )

        assert plan_context(facts) == ContextPlan(
            mode=SessionMode.GUEST,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=None,
        )

    def test_a_thread_without_session_is_new_with_floor_zero(self) -> None:
        facts = PlanFacts(agent_operates_thread=True, session=None, thread_id=THREAD_ID)

        assert plan_context(facts) == ContextPlan(
            mode=SessionMode.NEW,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=None,
        )

    def test_a_session_that_never_started_is_new_with_floor_zero_despite_an_earlier_failed_run(
        self,
    ) -> None:
        facts = PlanFacts(
            agent_operates_thread=True,
            session=SessionFacts(id=SESSION_ID, started=False),
            thread_id=THREAD_ID,
            earlier_run=EarlierRun(Position(THREAD_ID, 4)),
        )

        assert plan_context(facts) == ContextPlan(
            mode=SessionMode.NEW,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=SESSION_ID,
        )

    def test_a_started_session_without_an_earlier_run_is_bind_like_new(self) -> None:
        facts = PlanFacts(
            agent_operates_thread=True, session=started_session(), thread_id=THREAD_ID
        )

        assert plan_context(facts) == ContextPlan(
            mode=SessionMode.BIND,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=SESSION_ID,
        )

    def test_resume_with_the_previous_trigger_in_the_thread_has_its_seq_as_floor(self) -> None:
        facts = PlanFacts(
            agent_operates_thread=True,
            session=started_session(),
            thread_id=THREAD_ID,
            earlier_run=EarlierRun(Position(THREAD_ID, 12)),
        )

        assert plan_context(facts) == ContextPlan(
            mode=SessionMode.RESUME,
            floor_seq=12,
            exclude_own_messages=True,
            want_channel_context=False,
            session_id=SESSION_ID,
        )

    def test_resume_whose_previous_trigger_is_the_parent_message_has_floor_zero(self) -> None:
        # The parent message of an auto thread sits in the main thread; its position there
        # is no floor inside this thread.
        facts = PlanFacts(
            agent_operates_thread=True,
            session=started_session(),
            thread_id=THREAD_ID,
            earlier_run=EarlierRun(Position(MAIN_THREAD_ID, 40)),
        )

        plan = plan_context(facts)

        assert plan.mode is SessionMode.RESUME
        assert plan.floor_seq == 0
        assert plan.exclude_own_messages is True
        assert plan.want_channel_context is False

    def test_resume_where_no_earlier_run_has_a_triggering_message_has_floor_zero(self) -> None:
        # The newest earlier run with a triggering message is chosen in SQL (the run facts
        # statement); without any, the earlier runs still make this a resume.
        facts = PlanFacts(
            agent_operates_thread=True,
            session=started_session(),
            thread_id=THREAD_ID,
            earlier_run=EarlierRun(last_trigger=None),
        )

        plan = plan_context(facts)

        assert plan.mode is SessionMode.RESUME
        assert plan.floor_seq == 0

    def test_the_session_modes_carry_the_wire_values(self) -> None:
        assert [mode.value for mode in SessionMode] == ["guest", "new", "bind", "resume"]

    def test_a_negative_position_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="seq must not be negative"):
            Position(THREAD_ID, -1)


AGENT = "agent-lotse"
OTHER_AGENT = "agent-texter"
CHANNEL = "channel-general"
LIMITS = BackfillLimits(default=50, maximum=500)


def place(message_id: str, thread_id: str, seq: int, channel_id: str = CHANNEL) -> MessagePlace:
    """A message lying at ``seq`` of ``thread_id`` in ``channel_id``."""
    return MessagePlace(id=message_id, position=Position(thread_id, seq), channel_id=channel_id)


def surroundings(**changes: Any) -> RunSurroundings:
    """A run of lotse in a thread of general with a parent in the main thread.

    Lotse operates general; the thread has no session yet (mode new); the trigger is
    message 8 of the thread; the parent is message 40 of general's main thread.
    """
    base = RunSurroundings(
        agent_id=AGENT,
        thread_id=THREAD_ID,
        channel_id=CHANNEL,
        thread_operator_id=None,
        channel_operator_id=AGENT,
        channel_backfill_limit=None,
        session=None,
        earlier_run=None,
        trigger=place("trigger", THREAD_ID, 8),
        parent=place("parent", MAIN_THREAD_ID, 40),
    )
    return replace(base, **changes)


class TestPlanWindows:
    """Window planning: operator, backfill limit, trigger placement, channel context."""

    def test_a_new_run_selects_the_thread_before_the_trigger_and_the_channel_before_the_parent(
        self,
    ) -> None:
        plan = plan_windows(surroundings(), LIMITS)

        assert plan.context.mode is SessionMode.NEW
        assert plan.floor_seq == 0
        assert plan.thread == Window(THREAD_ID, after_seq=0, before_seq=8, limit=50)
        assert plan.channel == Window(MAIN_THREAD_ID, after_seq=0, before_seq=40, limit=50)
        assert plan.delivered_session_id is None

    def test_the_thread_operator_wins_over_the_channel_operator(self) -> None:
        plan = plan_windows(surroundings(thread_operator_id=OTHER_AGENT), LIMITS)

        assert plan.context.mode is SessionMode.GUEST

    def test_without_a_thread_operator_the_channel_operator_operates_the_thread(self) -> None:
        run = surroundings(
            channel_operator_id=OTHER_AGENT, session=started_session(), earlier_run=EarlierRun()
        )

        assert plan_windows(run, LIMITS).context.mode is SessionMode.GUEST

    def test_an_agent_fixed_as_thread_operator_operates_it_in_a_foreign_channel(self) -> None:
        run = surroundings(thread_operator_id=AGENT, channel_operator_id=OTHER_AGENT)

        assert plan_windows(run, LIMITS).context.mode is SessionMode.NEW

    @pytest.mark.parametrize(
        ("channel_limit", "expected"), [(None, 50), (20, 20), (0, 0), (900, 500)]
    )
    def test_the_backfill_limit_is_the_channels_own_else_the_default_capped_at_the_maximum(
        self, channel_limit: int | None, expected: int
    ) -> None:
        plan = plan_windows(surroundings(channel_backfill_limit=channel_limit), LIMITS)

        assert plan.thread is not None
        assert plan.thread.limit == expected
        assert plan.channel is not None
        assert plan.channel.limit == expected

    def test_resume_starts_the_thread_window_after_the_floor_without_own_messages(self) -> None:
        run = surroundings(
            session=started_session(), earlier_run=EarlierRun(Position(THREAD_ID, 3))
        )

        plan = plan_windows(run, LIMITS)

        assert plan.floor_seq == 3
        assert plan.thread == Window(
            THREAD_ID, after_seq=3, before_seq=8, limit=50, exclude_author_id=AGENT
        )
        assert plan.channel is None
        assert plan.delivered_session_id == SESSION_ID

    def test_a_trigger_that_is_the_parent_gives_no_thread_window_and_floor_zero(self) -> None:
        # Auto thread: the run in the new thread is triggered by the main-thread message.
        run = surroundings(
            trigger=place("parent", MAIN_THREAD_ID, 40),
            session=started_session(),
            earlier_run=EarlierRun(Position(THREAD_ID, 2)),
        )

        plan = plan_windows(run, LIMITS)

        assert plan.thread is None
        assert plan.floor_seq == 0
        assert plan.trigger.id == "parent"

    def test_a_trigger_outside_the_thread_that_is_not_the_parent_is_out_of_reach(self) -> None:
        run = surroundings(trigger=place("elsewhere", "thread-other", 2))

        with pytest.raises(TriggerOutOfReach):
            plan_windows(run, LIMITS)

    def test_a_vanished_trigger_is_out_of_reach(self) -> None:
        with pytest.raises(TriggerOutOfReach):
            plan_windows(surroundings(trigger=None), LIMITS)

    def test_a_parent_in_another_channel_after_a_move_gives_no_channel_window(self) -> None:
        run = surroundings(parent=place("parent", "thread-source-main", 40, "channel-source"))

        plan = plan_windows(run, LIMITS)

        assert plan.channel is None
        assert plan.thread is not None

    def test_a_thread_without_parent_has_no_channel_window(self) -> None:
        assert plan_windows(surroundings(parent=None), LIMITS).channel is None
