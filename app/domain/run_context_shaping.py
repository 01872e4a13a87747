"""Shaping the loaded windows of a run context: cut, fit the budget, mark the gap.

* :func:`cut_content` cuts one message at ``agent.context_message_max_bytes`` on a UTF-8
  character boundary.
* :func:`fit_budget` keeps the newest contiguous run of elements whose contents fit
  ``agent.context_max_bytes`` in total, so cutting goes from old to new.
* :func:`truncated_before_seq` tells the adapter where older messages of the thread are
  missing, so it can load them itself.
* :func:`shape_windows` applies the three in the order the run context needs.

Pure: limits are passed as integers read from the named configuration keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import chain
from typing import NamedTuple

__all__ = [
    "ContextItem",
    "ContextPart",
    "ShapedWindows",
    "cut_content",
    "fit_budget",
    "shape_windows",
    "truncated_before_seq",
]

# A UTF-8 continuation byte has the bit pattern 10xxxxxx; every other byte starts a
# character, so a cut in front of a non-continuation byte never splits one.
_CONTINUATION_MASK = 0xC0
_CONTINUATION_TAG = 0x80


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
