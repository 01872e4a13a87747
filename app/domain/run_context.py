"""Shaping rules of the run context an agent reads for its own active run.

The server, not the agent adapter, decides which earlier messages an agent sees and how
much of them, so every adapter gets the same bounded view and none can widen it. This
module holds only those shaping rules as pure functions over plain facts:

* :func:`plan_context` picks the session mode and, from it, the floor below which earlier
  messages are left out, whether the agent's own messages are left out and whether the
  main-thread messages before the thread's parent message are wanted.
* :func:`plan_windows` turns a run's surroundings into the windows to load: who
  operates the thread, the channel's backfill limit, where the triggering message lies
  (in the thread, or the thread's parent), and whether the parent lies in the thread's
  current channel.
* :func:`cut_content` cuts one message at ``agent.context_message_max_bytes`` on a UTF-8
  character boundary.
* :func:`fit_budget` keeps the newest contiguous run of elements whose contents fit
  ``agent.context_max_bytes`` in total, so cutting goes from old to new.
* :func:`truncated_before_seq` tells the adapter where older messages of the thread are
  missing, so it can load them itself.
* :func:`shape_windows` applies the three in the order the run context needs.

Classification and trust of authors are deliberately not here: they are rights questions
and live in the policy rules, so no second place can disagree about who may instruct an
agent. Loading the windows is the repositories' job; this module plans them and shapes
what was loaded.

Nothing here performs I/O or reads configuration: callers pass limits as integers read
from the named configuration keys, which keeps the rules deterministic and easy to test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import chain
from typing import NamedTuple

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

# A UTF-8 continuation byte has the bit pattern 10xxxxxx; every other byte starts a
# character, so a cut in front of a non-continuation byte never splits one.
_CONTINUATION_MASK = 0xC0
_CONTINUATION_TAG = 0x80


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
    """Plan the windows of a run context (seed 000 notes 5 and 6).

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


def _utf8_length(text: str) -> int:
    """The UTF-8 length of ``text``, without encoding it when it is ASCII (a flag the
    interpreter keeps: no scan).

    Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate.
    """
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def cut_content(text: str, max_bytes: int) -> tuple[str, bool]:
    """Cut ``text`` to the longest prefix whose UTF-8 encoding fits ``max_bytes``.

    Used with ``agent.context_message_max_bytes`` for every earlier message of a run
    context. The cut never splits a character, so the result is always valid UTF-8 and
    the adapter never sees a broken code point.

    Args:
        text: The content to cut.
        max_bytes: The largest allowed UTF-8 length in bytes; zero allows only the empty
            string.

    Returns:
        ``(text, False)`` when the encoding of ``text`` fits, otherwise
        ``(prefix, True)`` with the longest fitting prefix.

    Raises:
        ValueError: When ``max_bytes`` is negative, since no content can fit.
        UnicodeEncodeError: When ``text`` holds a lone surrogate and therefore has no UTF-8
            encoding; stored message content never does, so this signals a caller bug and
            must not be papered over with a lossy result.
    """
    content, truncated, _size = _cut(text, max_bytes)
    return content, truncated


def _cut(text: str, max_bytes: int) -> tuple[str, bool, int]:
    """:func:`cut_content` with the UTF-8 length of the result (encoded once)."""
    if max_bytes < 0:
        raise ValueError("max_bytes must not be negative")
    if text.isascii():
        size = len(text)
        if size <= max_bytes:
            return text, False, size
        return text[:max_bytes], True, max_bytes
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text, False, len(encoded)
    cut = max_bytes
    # encoded[cut] exists because the encoding is longer than max_bytes; stepping back over
    # continuation bytes lands on a character start, so the prefix decodes cleanly.
    while cut > 0 and encoded[cut] & _CONTINUATION_MASK == _CONTINUATION_TAG:
        cut -= 1
    return encoded[:cut].decode("utf-8"), True, cut


class ContextPart(StrEnum):
    """Which window of a run context an element belongs to."""

    CHANNEL = "channel"
    """Main-thread messages before the thread's parent message."""

    THREAD = "thread"
    """Earlier messages of the run's own thread."""


class ContextItem(NamedTuple):
    """One earlier message of a run context, reduced to what shaping needs.

    The caller keeps everything else (author, origin, attachments) keyed by
    ``message_id``, so this module never handles fields it has no rule for. A named
    tuple: immutable, and a hundred are built per context read.

    Attributes:
        message_id: Identifier of the message.
        thread_seq: Position of the message within its thread.
        content_md: The content, possibly already cut.
        part: The window the message belongs to.
        truncated: Whether ``content_md`` was cut.
    """

    message_id: str
    thread_seq: int
    content_md: str
    part: ContextPart
    truncated: bool = False

    @property
    def content_bytes(self) -> int:
        """UTF-8 length of ``content_md``; the only size the budget counts."""
        return _utf8_length(self.content_md)


def fit_budget(
    channel: Sequence[ContextItem],
    thread: Sequence[ContextItem],
    max_total: int,
) -> tuple[list[ContextItem], list[ContextItem]]:
    """Keep the newest contiguous elements whose contents fit ``max_total`` bytes.

    Used with ``agent.context_max_bytes``. The channel part lies chronologically before the
    thread part, so both are walked as one timeline from the newest thread element back to
    the oldest channel element. Elements are kept while the running sum of their
    ``content_bytes`` stays within ``max_total``; the first element that does not fit and
    every older one are dropped, even if a smaller older one would still fit. That keeps
    the kept set a gap-free newest suffix, so the adapter can load what is missing in one
    range. The triggering message is not an input: it is never cut and never counted.

    Args:
        channel: Channel-context elements, ascending by ``thread_seq``.
        thread: Thread-context elements, ascending by ``thread_seq``.
        max_total: The largest allowed sum of content bytes.

    Returns:
        ``(kept_channel, kept_thread)``, each ascending by ``thread_seq``.

    Raises:
        ValueError: When ``max_total`` is negative, when an element sits in the wrong part
            or when a part is not strictly ascending by ``thread_seq``; the contiguity
            guarantee only holds for well-ordered input, so a caller bug fails loudly.
    """
    return _fit(
        channel,
        thread,
        [item.content_bytes for item in channel],
        [item.content_bytes for item in thread],
        max_total,
    )


def _fit(
    channel: Sequence[ContextItem],
    thread: Sequence[ContextItem],
    channel_sizes: Sequence[int],
    thread_sizes: Sequence[int],
    max_total: int,
) -> tuple[list[ContextItem], list[ContextItem]]:
    """:func:`fit_budget` with the ``content_bytes`` of every element already known."""
    if max_total < 0:
        raise ValueError("max_total must not be negative")
    _check_part(channel, ContextPart.CHANNEL)
    _check_part(thread, ContextPart.THREAD)

    kept = 0
    total = 0
    for size in chain(reversed(thread_sizes), reversed(channel_sizes)):
        total += size
        if total > max_total:
            break
        kept += 1

    kept_thread = min(kept, len(thread))
    kept_channel = kept - kept_thread
    return (
        list(channel[len(channel) - kept_channel :]),
        list(thread[len(thread) - kept_thread :]),
    )


def _check_part(items: Sequence[ContextItem], part: ContextPart) -> None:
    """Raise ``ValueError`` unless ``items`` all belong to ``part`` in ascending order."""
    previous: int | None = None
    for item in items:
        if item.part is not part:
            raise ValueError(f"element {item.message_id} is not part of the {part} window")
        if previous is not None and item.thread_seq <= previous:
            raise ValueError(f"the {part} window is not strictly ascending by thread_seq")
        previous = item.thread_seq


def truncated_before_seq(
    has_older: bool,
    thread_dropped: bool,
    kept_thread: Sequence[ContextItem],
    trigger_seq: int,
) -> int | None:
    """Return where older messages of the thread are missing from the context, if anywhere.

    The marker refers to the run's thread only; channel-context gaps are not reported,
    because the adapter loads older thread messages, not main-thread ones.

    Args:
        has_older: Whether the thread window left out older selectable messages (it hit
            the channel's backfill limit, see ``channel.history_backfill_limit_default``).
        thread_dropped: Whether the budget dropped elements of the thread window.
        kept_thread: The thread elements that remain, ascending by ``thread_seq``.
        trigger_seq: ``thread_seq`` of the triggering message; the marker when no thread
            element remains, since everything before the trigger is then missing.

    Returns:
        ``None`` when nothing is missing, otherwise the ``thread_seq`` of the oldest kept
        thread element, or ``trigger_seq`` when none is kept.

    Raises:
        Nothing.
    """
    if not (has_older or thread_dropped):
        return None
    if kept_thread:
        return kept_thread[0].thread_seq
    return trigger_seq


@dataclass(frozen=True, slots=True)
class ShapedWindows:
    """The windows of a run context after cutting and budgeting.

    Attributes:
        channel: Kept channel-context elements, ascending by ``thread_seq``.
        thread: Kept thread-context elements, ascending by ``thread_seq``.
        truncated_before_seq: See :func:`truncated_before_seq`.
    """

    channel: list[ContextItem]
    thread: list[ContextItem]
    truncated_before_seq: int | None


def shape_windows(
    channel: Sequence[ContextItem],
    thread: Sequence[ContextItem],
    *,
    has_older: bool,
    trigger_seq: int,
    message_max_bytes: int,
    total_max_bytes: int,
) -> ShapedWindows:
    """Cut every element, fit the budget and mark the thread gap, in that order.

    Cutting comes first because the budget counts content after the per-message cut;
    otherwise one long message would count with its full size and push older messages out
    of the budget although its cut version leaves room for them.

    Args:
        channel: Channel-context elements with full content, ascending by ``thread_seq``.
        thread: Thread-context elements with full content, ascending by ``thread_seq``.
        has_older: Whether the thread window left out older selectable messages.
        trigger_seq: ``thread_seq`` of the triggering message.
        message_max_bytes: Value of ``agent.context_message_max_bytes``.
        total_max_bytes: Value of ``agent.context_max_bytes``.

    Returns:
        The kept windows and the thread gap marker.

    Raises:
        ValueError: As :func:`cut_content` and :func:`fit_budget` raise it.
        UnicodeEncodeError: As :func:`cut_content` raises it.
    """
    cut_channel, channel_sizes = _cut_items(channel, message_max_bytes)
    cut_thread, thread_sizes = _cut_items(thread, message_max_bytes)
    kept_channel, kept_thread = _fit(
        cut_channel, cut_thread, channel_sizes, thread_sizes, total_max_bytes
    )
    return ShapedWindows(
        channel=kept_channel,
        thread=kept_thread,
        truncated_before_seq=truncated_before_seq(
            has_older,
            len(kept_thread) < len(cut_thread),
            kept_thread,
            trigger_seq,
        ),
    )


def _cut_items(items: Sequence[ContextItem], max_bytes: int) -> tuple[list[ContextItem], list[int]]:
    """Every item with its content cut (an earlier cut stays marked), and the UTF-8
    length of each cut content, for the budget."""
    cut_items: list[ContextItem] = []
    sizes: list[int] = []
    for item in items:
        content, cut, size = _cut(item.content_md, max_bytes)
        cut_items.append(item._replace(content_md=content, truncated=True) if cut else item)
        sizes.append(size)
    return cut_items, sizes
