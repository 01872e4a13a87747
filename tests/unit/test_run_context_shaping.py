"""Unit tests of run-context shaping in :mod:`app.domain.run_context`.

One test per case of the run-context ticket on shaping: cutting one message, fitting
the total budget and marking where older thread messages are missing. Limits in these
tests are small stand-ins for ``agent.context_message_max_bytes`` and
``agent.context_max_bytes`` so each case is readable by hand.
"""

from __future__ import annotations

import inspect

import pytest

from app.domain.run_context import (
    ContextItem,
    ContextPart,
    cut_content,
    fit_budget,
    shape_windows,
    truncated_before_seq,
)


def channel_item(seq: int, content: str) -> ContextItem:
    """Build a channel-context element; ids encode part and position for readable failures."""
    return ContextItem(f"c{seq}", seq, content, ContextPart.CHANNEL)


def thread_item(seq: int, content: str) -> ContextItem:
    """Build a thread-context element; ids encode part and position for readable failures."""
    return ContextItem(f"t{seq}", seq, content, ContextPart.THREAD)


def seqs(items: list[ContextItem]) -> list[int]:
    """Positions of ``items``, so assertions read as timelines."""
    return [item.thread_seq for item in items]


class TestCutContent:
    """Cutting one message at a UTF-8 character boundary."""

    def test_content_below_the_limit_is_returned_unchanged(self) -> None:
        assert cut_content("Hello Sam", 10) == ("Hello Sam", False)

    def test_content_equal_to_the_limit_is_returned_unchanged(self) -> None:
        assert cut_content("Hello Sam!", 10) == ("Hello Sam!", False)

    def test_content_above_the_limit_is_cut_to_the_limit_and_marked(self) -> None:
        assert cut_content("Hello Robin", 10) == ("Hello Robi", True)

    @pytest.mark.parametrize(
        ("text", "limit", "expected"),
        [
            ("a\u00e9", 2, "a"),  # two-byte character would need bytes 2 and 3
            ("ab\u20ac", 4, "ab"),  # three-byte character across the limit
            ("\U0001f600x", 3, ""),  # four-byte character longer than the limit
            ("\U0001f600x", 4, "\U0001f600"),  # boundary right after the character
        ],
    )
    def test_a_multi_byte_character_across_the_limit_is_not_split(
        self, text: str, limit: int, expected: str
    ) -> None:
        assert cut_content(text, limit) == (expected, True)

    def test_the_result_is_valid_utf8_for_every_limit(self) -> None:
        text = "Alex: gr\u00fc\u00dfe \u20ac \U0001f600 an Sam@example.com"
        size = len(text.encode("utf-8"))

        for limit in range(size + 2):
            result, truncated = cut_content(text, limit)
            encoded = result.encode("utf-8")

            assert encoded.decode("utf-8") == result
            assert len(encoded) <= limit
            assert text.startswith(result)
            assert truncated == (limit < size)

    def test_a_zero_limit_gives_empty_and_truncated_for_non_empty_text(self) -> None:
        assert cut_content("x", 0) == ("", True)

    def test_empty_text_is_never_truncated(self) -> None:
        assert cut_content("", 0) == ("", False)

    def test_a_negative_limit_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="max_bytes"):
            cut_content("x", -1)

    def test_text_with_a_lone_surrogate_is_rejected_instead_of_cut_lossily(self) -> None:
        with pytest.raises(UnicodeEncodeError):
            cut_content("ok\ud800", 100)


class TestFitBudget:
    """Keeping the newest contiguous elements within the total budget."""

    def test_the_newest_elements_are_kept_and_the_oldest_dropped(self) -> None:
        thread = [thread_item(1, "aaaa"), thread_item(2, "bbbb"), thread_item(3, "cccc")]

        kept_channel, kept_thread = fit_budget([], thread, 8)

        assert kept_channel == []
        assert seqs(kept_thread) == [2, 3]

    def test_channel_elements_are_dropped_before_thread_elements(self) -> None:
        channel = [channel_item(30, "cccc"), channel_item(31, "dddd")]
        thread = [thread_item(1, "aaaa"), thread_item(2, "bbbb")]

        kept_channel, kept_thread = fit_budget(channel, thread, 12)

        assert seqs(kept_channel) == [31]
        assert seqs(kept_thread) == [1, 2]

    def test_the_kept_elements_are_contiguous_even_when_an_older_small_one_would_fit(
        self,
    ) -> None:
        # "bbbb" alone fits the budget but not together with the newer "cc"; the older
        # "a" and "c" would still fit, yet keeping them would leave a gap.
        channel = [channel_item(30, "c")]
        thread = [thread_item(1, "a"), thread_item(2, "bbbb"), thread_item(3, "cc")]

        kept_channel, kept_thread = fit_budget(channel, thread, 5)

        assert kept_channel == []
        assert seqs(kept_thread) == [3]

    def test_the_sum_of_kept_contents_never_exceeds_the_limit(self) -> None:
        channel = [channel_item(seq, "\u00e9" * seq) for seq in range(1, 6)]
        thread = [thread_item(seq, "x" * seq) for seq in range(1, 6)]

        for limit in range(0, 50):
            kept_channel, kept_thread = fit_budget(channel, thread, limit)
            total = sum(item.content_bytes for item in kept_channel + kept_thread)

            assert total <= limit

    def test_an_element_larger_than_the_whole_budget_drops_everything_older_too(self) -> None:
        channel = [channel_item(30, "c")]
        thread = [thread_item(1, "a"), thread_item(2, "b" * 20), thread_item(3, "cc")]

        kept_channel, kept_thread = fit_budget(channel, thread, 10)

        assert kept_channel == []
        assert seqs(kept_thread) == [3]

    def test_a_newest_element_larger_than_the_budget_leaves_nothing(self) -> None:
        thread = [thread_item(1, "a"), thread_item(2, "b" * 20)]

        assert fit_budget([channel_item(30, "c")], thread, 10) == ([], [])

    def test_the_trigger_is_not_an_input_and_takes_nothing_from_the_budget(self) -> None:
        # The triggering message is never cut and never counted, so the budget has no way
        # to receive it; a context that exactly fills the budget stays whole.
        assert list(inspect.signature(fit_budget).parameters) == [
            "channel",
            "thread",
            "max_total",
        ]
        thread = [thread_item(1, "aaaa"), thread_item(2, "bbbb")]

        shaped = shape_windows(
            [],
            thread,
            has_older=False,
            trigger_seq=3,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert shaped.thread == thread
        assert shaped.truncated_before_seq is None

    def test_the_budget_counts_utf8_bytes_not_characters(self) -> None:
        thread = [thread_item(1, "\u00e9\u00e9"), thread_item(2, "\u00e9\u00e9")]

        _, kept_thread = fit_budget([], thread, 6)

        assert seqs(kept_thread) == [2]

    def test_a_zero_budget_keeps_only_the_newest_empty_contents(self) -> None:
        thread = [thread_item(1, ""), thread_item(2, "a"), thread_item(3, ""), thread_item(4, "")]

        _, kept_thread = fit_budget([], thread, 0)

        assert seqs(kept_thread) == [3, 4]

    def test_a_negative_budget_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="max_total"):
            fit_budget([], [thread_item(1, "a")], -1)

    def test_an_element_in_the_wrong_part_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="not part of the channel window"):
            fit_budget([thread_item(1, "a")], [], 10)

    def test_a_part_out_of_order_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="not strictly ascending"):
            fit_budget([], [thread_item(2, "b"), thread_item(1, "a")], 10)


class TestTruncatedBeforeSeq:
    """The marker telling the adapter where older thread messages are missing."""

    def test_older_messages_beyond_the_backfill_limit_only_mark_the_oldest_kept(self) -> None:
        kept = [thread_item(5, "e"), thread_item(6, "f")]

        assert truncated_before_seq(True, False, kept, trigger_seq=7) == 5

    def test_a_budget_drop_only_marks_the_oldest_kept(self) -> None:
        kept = [thread_item(6, "f")]

        assert truncated_before_seq(False, True, kept, trigger_seq=7) == 6

    def test_nothing_kept_marks_the_triggering_message(self) -> None:
        assert truncated_before_seq(True, True, [], trigger_seq=7) == 7

    def test_nothing_missing_gives_no_marker(self) -> None:
        kept = [thread_item(1, "a"), thread_item(2, "b")]

        assert truncated_before_seq(False, False, kept, trigger_seq=3) is None


class TestShapeWindows:
    """Cut, budget and marker applied together, as the use case calls them."""

    def test_long_messages_are_cut_before_the_budget_counts_them(self) -> None:
        thread = [thread_item(1, "a" * 10), thread_item(2, "bbbb")]

        shaped = shape_windows(
            [],
            thread,
            has_older=False,
            trigger_seq=3,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert [(i.content_md, i.truncated) for i in shaped.thread] == [
            ("aaaa", True),
            ("bbbb", False),
        ]
        assert shaped.truncated_before_seq is None

    def test_a_budget_drop_in_the_thread_sets_the_marker_to_the_oldest_kept(self) -> None:
        thread = [thread_item(1, "aaaa"), thread_item(2, "bbbb"), thread_item(3, "cccc")]

        shaped = shape_windows(
            [],
            thread,
            has_older=False,
            trigger_seq=4,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert seqs(shaped.thread) == [2, 3]
        assert shaped.truncated_before_seq == 2

    def test_a_drop_in_the_channel_only_sets_no_marker(self) -> None:
        channel = [channel_item(30, "cccc"), channel_item(31, "dddd")]
        thread = [thread_item(1, "aaaa")]

        shaped = shape_windows(
            channel,
            thread,
            has_older=False,
            trigger_seq=2,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert seqs(shaped.channel) == [31]
        assert seqs(shaped.thread) == [1]
        assert shaped.truncated_before_seq is None

    def test_has_older_with_everything_kept_marks_the_oldest_kept(self) -> None:
        thread = [thread_item(8, "h"), thread_item(9, "i")]

        shaped = shape_windows(
            [],
            thread,
            has_older=True,
            trigger_seq=10,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert shaped.truncated_before_seq == 8

    def test_an_earlier_truncation_mark_survives(self) -> None:
        item = ContextItem("t1", 1, "ab", ContextPart.THREAD, truncated=True)

        shaped = shape_windows(
            [],
            [item],
            has_older=False,
            trigger_seq=2,
            message_max_bytes=4,
            total_max_bytes=8,
        )

        assert shaped.thread == [item]
