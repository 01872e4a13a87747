"""Shaping rules of the run context an agent reads for its own active run.

The server, not the agent adapter, decides which earlier messages an agent sees and how
much of them, so every adapter gets the same bounded view and none can widen it. The
rules are pure functions over plain facts, in three steps:

* the session plan (:mod:`app.domain.run_context_plan`): mode, floor, own messages;
* the windows to load (here: :func:`plan_windows`): who operates the thread, the
  channel's backfill limit, where the triggering message lies, whether the parent lies
  in the thread's current channel;
* shaping what was loaded (:mod:`app.domain.run_context_shaping`): cut, budget, gap.

Every public name of the three is importable from here. Classification and trust of
authors are rights questions and live in the policy rules; loading the windows is the
repositories' job. Nothing here performs I/O or reads configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.run_context_plan import (
    ContextPlan,
    EarlierRun,
    PlanFacts,
    Position,
    SessionFacts,
    SessionMode,
    plan_context,
)
from app.domain.run_context_shaping import (
    ContextItem,
    ContextPart,
    ShapedWindows,
    cut_content,
    fit_budget,
    shape_windows,
    truncated_before_seq,
)

__all__ = [
    "BackfillLimits",
    "ContextItem",
    "ContextPart",
    "ContextPlan",
    "EarlierRun",
    "MessagePlace",
    "PlanFacts",
    "Position",
    "RunSurroundings",
    "SessionFacts",
    "SessionMode",
    "ShapedWindows",
    "TriggerOutOfReach",
    "Window",
    "WindowPlan",
    "cut_content",
    "fit_budget",
    "plan_context",
    "plan_windows",
    "shape_windows",
    "truncated_before_seq",
]


@dataclass(frozen=True, slots=True)
class MessagePlace:
    """A message's id and where it lies now.

    Attributes:
        id: The message id.
        position: Its thread and ``thread_seq``.
        channel_id: The current channel of its thread (threads can move).
    """

    id: str
    position: Position
    channel_id: str


@dataclass(frozen=True, slots=True)
class RunSurroundings:
    """Everything about a run that decides its windows, as stored.

    Attributes:
        agent_id: The run's agent.
        thread_id: The run's thread.
        channel_id: The thread's current channel.
        thread_operator_id: The thread's fixed operator, if any.
        channel_operator_id: The channel's operator, if any.
        channel_backfill_limit: The channel's own ``history_backfill_limit``, if set.
        session: The thread's current session when it belongs to the run's agent.
        earlier_run: The agent's earlier runs in that session, if any.
        trigger: The triggering message, or ``None`` when its row is gone.
        parent: The thread's parent message, or ``None`` for a thread without one.
    """

    agent_id: str
    thread_id: str
    channel_id: str
    thread_operator_id: str | None
    channel_operator_id: str | None
    channel_backfill_limit: int | None
    session: SessionFacts | None
    earlier_run: EarlierRun | None
    trigger: MessagePlace | None
    parent: MessagePlace | None

    @property
    def agent_operates_thread(self) -> bool:
        """Whether the run's agent is the thread's effective operator.

        A thread's fixed operator wins; otherwise the channel's operator operates it.
        """
        operator = self.thread_operator_id or self.channel_operator_id
        return operator == self.agent_id


@dataclass(frozen=True, slots=True)
class BackfillLimits:
    """The configured bounds of a channel's backfill (a window's size).

    Attributes:
        default: ``channel.history_backfill_limit_default``, for channels without one.
        maximum: ``channel.history_backfill_limit_max``, the cap of every channel.
    """

    default: int
    maximum: int

    def of_channel(self, channel_limit: int | None) -> int:
        """The window size of a channel: its own limit (else the default), capped."""
        limit = self.default if channel_limit is None else channel_limit
        return min(limit, self.maximum)


@dataclass(frozen=True, slots=True)
class Window:
    """One window to select: selectable messages strictly between two positions.

    Attributes:
        thread_id: The thread to select from.
        after_seq: Exclusive lower bound (the floor, or zero).
        before_seq: Exclusive upper bound (the triggering or the parent message).
        limit: Keep the newest ``limit`` selectable messages; zero selects none.
        exclude_author_id: An author whose messages are not selectable, if any.
    """

    thread_id: str
    after_seq: int
    before_seq: int
    limit: int
    exclude_author_id: str | None = None


@dataclass(frozen=True, slots=True)
class WindowPlan:
    """What to load for a run context, decided before any message is read.

    Attributes:
        context: The session plan (mode, floor, own messages, session).
        trigger: The triggering message.
        floor_seq: ``context_floor_seq`` of the answer: the plan's floor when the
            trigger lies in the run's thread, else zero.
        thread: The thread window, or ``None`` when the trigger is the thread's parent
            (an auto thread has no message before it).
        channel: The channel window, or ``None`` when it is not built.
        delivered_session_id: The session whose delivered follow-ups are marked (mode
            resume only), or ``None``.
    """

    context: ContextPlan
    trigger: MessagePlace
    floor_seq: int
    thread: Window | None
    channel: Window | None
    delivered_session_id: str | None


class TriggerOutOfReach(Exception):
    """The triggering message is gone or lies neither in the thread nor is its parent.

    The run then has no context; callers answer as for an unknown run.
    """


def plan_windows(run: RunSurroundings, limits: BackfillLimits) -> WindowPlan:
    """Plan the windows of a run context (decisions.md S0-5 and S0-6).

    * The session plan comes from :func:`plan_context`.
    * The triggering message must lie in the run's thread, or be the thread's parent
      message (an auto thread's run is triggered by the main-thread message it was
      created from). Then the thread window holds nothing: the floor is zero and no
      thread window is selected.
    * The thread window ends before the trigger, starts after the floor, and leaves out
      the agent's own messages when the session resumes.
    * The channel window holds the main-thread messages before the parent message, only
      when the plan wants channel context and the parent lies in the thread's current
      channel: after a move, content of the source channel must not reach the target's
      readers.
    * Both windows keep at most the channel's backfill limit (:class:`BackfillLimits`).

    Raises:
        TriggerOutOfReach: the trigger is gone or misplaced.
    """
    trigger = run.trigger
    in_thread = trigger is not None and trigger.position.thread_id == run.thread_id
    is_parent = trigger is not None and run.parent is not None and trigger.id == run.parent.id
    if trigger is None or not (in_thread or is_parent):
        raise TriggerOutOfReach()
    context = plan_context(
        PlanFacts(
            agent_operates_thread=run.agent_operates_thread,
            session=run.session,
            thread_id=run.thread_id,
            earlier_run=run.earlier_run,
        )
    )
    limit = limits.of_channel(run.channel_backfill_limit)
    floor = context.floor_seq if in_thread else 0
    thread = None
    if in_thread:
        thread = Window(
            thread_id=run.thread_id,
            after_seq=floor,
            before_seq=trigger.position.seq,
            limit=limit,
            exclude_author_id=run.agent_id if context.exclude_own_messages else None,
        )
    channel = None
    parent = run.parent
    if context.want_channel_context and parent is not None and parent.channel_id == run.channel_id:
        channel = Window(
            thread_id=parent.position.thread_id,
            after_seq=0,
            before_seq=parent.position.seq,
            limit=limit,
        )
    resumed = context.mode is SessionMode.RESUME
    return WindowPlan(
        context=context,
        trigger=trigger,
        floor_seq=floor,
        thread=thread,
        channel=channel,
        delivered_session_id=context.session_id if resumed else None,
    )
