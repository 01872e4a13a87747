"""The session plan of a run context: which earlier messages its agent already knows.

:func:`plan_context` picks the session mode of a run (guest, new, bind, resume) and,
from it, the floor below which earlier messages are left out, whether the agent's own
messages are left out and whether the main-thread messages before the thread's parent
message are wanted. Pure: the caller gathers the facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "ContextPlan",
    "EarlierRun",
    "PlanFacts",
    "Position",
    "SessionFacts",
    "SessionMode",
    "plan_context",
]


class SessionMode(StrEnum):
    """How a run relates to the agent session of its thread.

    The mode decides what the agent already knows: a resumed session has seen the thread up
    to its previous trigger, while a new, freshly bound or guest run knows nothing yet. The
    values equal the wire values of ``session.mode`` so delivery and context cannot drift.
    """

    GUEST = "guest"
    """The agent does not operate the thread; it has no session there."""

    NEW = "new"
    """No current session, or the current session never started."""

    BIND = "bind"
    """A started session that this agent has not run in yet."""

    RESUME = "resume"
    """A started session with an earlier run of this agent."""


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """The current agent session of a thread, as far as planning needs it.

    Attributes:
        id: Identifier of the session.
        started: Whether the session has started; a session that never started knows
            nothing of the thread, so it plans like having no session at all.
    """

    id: str
    started: bool


@dataclass(frozen=True, slots=True)
class Position:
    """Where a message lies now: its thread and its ``thread_seq`` there.

    Attributes:
        thread_id: The thread holding the message.
        seq: The message's ``thread_seq`` in that thread (not negative).

    Raises:
        ValueError: When ``seq`` is negative: a negative position cannot serve as a
            floor, and silently treating it as zero would hide a caller bug.
    """

    thread_id: str
    seq: int

    def __post_init__(self) -> None:
        """Reject negative positions (see the class docstring)."""
        if self.seq < 0:
            raise ValueError("seq must not be negative")


@dataclass(frozen=True, slots=True)
class EarlierRun:
    """Earlier runs of the same agent in the same session, as planning needs them.

    Attributes:
        last_trigger: Position of the triggering message of the newest earlier run that
            has one, because that is where the previous view of the thread ended; ``None``
            when no earlier run has a triggering message (for example runs started by a
            command, or whose message row is gone).
    """

    last_trigger: Position | None = None


@dataclass(frozen=True, slots=True)
class PlanFacts:
    """Facts :func:`plan_context` decides on; gathered by the caller from its ports.

    Attributes:
        agent_operates_thread: Whether the run's agent operates the thread (the thread's
            fixed operator, else the channel's effective operator).
        session: The current session of the thread, or ``None`` when there is none.
        thread_id: The thread the run belongs to.
        earlier_run: The agent's earlier runs in ``session``, or ``None`` when there are
            none. Ignored unless the session has started.
    """

    agent_operates_thread: bool
    session: SessionFacts | None
    thread_id: str
    earlier_run: EarlierRun | None = None


@dataclass(frozen=True, slots=True)
class ContextPlan:
    """What the run context of one run contains, before any window is loaded.

    Attributes:
        mode: The session mode of the run.
        floor_seq: Earlier thread messages at or below this ``thread_seq`` are left out;
            zero leaves nothing out.
        exclude_own_messages: Whether the agent's own messages are left out, because a
            resumed session already holds them.
        want_channel_context: Whether the main-thread messages before the thread's parent
            message are wanted; the caller still builds them only when the parent message
            lies in the thread's current channel.
        session_id: The session the run belongs to, or ``None`` for guests and threads
            without a session.
    """

    mode: SessionMode
    floor_seq: int
    exclude_own_messages: bool
    want_channel_context: bool
    session_id: str | None


def plan_context(facts: PlanFacts) -> ContextPlan:
    """Decide session mode, floor, own-message exclusion and channel context of a run.

    Rules, first match wins:

    * guest: the agent does not operate the thread. Floor zero, own messages included,
      channel context wanted, no session.
    * new: no current session, or a session that has not started. Same shaping as guest,
      because such a session knows nothing of the thread.
    * bind: a started session without an earlier run of this agent. Same shaping as new.
    * resume: a started session with an earlier run. Own messages are excluded and no
      channel context is wanted, because the session already saw both. The floor is the
      ``thread_seq`` of the triggering message of the newest earlier run that has one; it
      is zero when that message lies in another thread (the parent message of an auto
      thread, whose main-thread position means nothing inside this thread) or when no
      earlier run has a triggering message.

    Args:
        facts: The gathered facts of the run.

    Returns:
        The plan for loading and shaping the context windows.

    Raises:
        Nothing; invalid positions are rejected when :class:`Position` is constructed.
    """
    if not facts.agent_operates_thread:
        return ContextPlan(
            mode=SessionMode.GUEST,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=None,
        )
    session = facts.session
    if session is None or not session.started:
        return ContextPlan(
            mode=SessionMode.NEW,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=None if session is None else session.id,
        )
    if facts.earlier_run is None:
        return ContextPlan(
            mode=SessionMode.BIND,
            floor_seq=0,
            exclude_own_messages=False,
            want_channel_context=True,
            session_id=session.id,
        )
    last = facts.earlier_run.last_trigger
    return ContextPlan(
        mode=SessionMode.RESUME,
        floor_seq=last.seq if last is not None and last.thread_id == facts.thread_id else 0,
        exclude_own_messages=True,
        want_channel_context=False,
        session_id=session.id,
    )
