"""Property tests of the run-context shaping rules in :mod:`app.domain.run_context`.

The example-based tests pin single cases; these check the guarantees the adapter relies
on for every input: a cut message is a valid UTF-8 prefix within
``agent.context_message_max_bytes`` and as long as possible, and the budget keeps a
gap-free newest suffix within ``agent.context_max_bytes`` that could not take one more
element. The Python counterpart of arbitrary bytes is text decoded with a lenient or a
surrogate-producing error handler, so both kinds are fed in.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.domain.run_context import (
    ContextItem,
    ContextPart,
    cut_content,
    fit_budget,
    shape_windows,
)

# Characters of every UTF-8 length, so cuts land inside multi-byte sequences often.
_MULTI_BYTE = st.sampled_from(["a", "Z", " ", "\u00e9", "\u00df", "\u20ac", "\u4e2d", "\U0001f600"])
_MIXED_TEXT = st.one_of(st.text(), st.text(alphabet=_MULTI_BYTE))
_LIMITS = st.integers(min_value=0, max_value=80)
_LONE_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)


def _utf8_len(text: str) -> int:
    """Byte length of ``text`` in UTF-8, the unit every limit is measured in."""
    return len(text.encode("utf-8"))


def _is_utf8_encodable(text: str) -> bool:
    """Whether ``text`` has a UTF-8 encoding, i.e. holds no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _assert_valid_cut(text: str, limit: int) -> None:
    """Assert every guarantee of ``cut_content`` for one encodable input."""
    result, truncated = cut_content(text, limit)
    encoded = result.encode("utf-8")

    assert encoded.decode("utf-8") == result
    assert len(encoded) <= limit
    assert text.startswith(result)
    assert truncated == (_utf8_len(text) > limit)
    if truncated:
        # Maximal: one more character would no longer fit.
        assert len(encoded) + _utf8_len(text[len(result)]) > limit
    else:
        assert result == text


def _assert_cut_or_rejected(text: str, limit: int) -> None:
    """Text without a UTF-8 encoding must be rejected; any other text must cut validly."""
    if _is_utf8_encodable(text):
        _assert_valid_cut(text, limit)
        return
    try:
        cut_content(text, limit)
    except UnicodeEncodeError:
        return
    raise AssertionError("text with a lone surrogate was cut instead of rejected")


@given(text=_MIXED_TEXT, limit=_LIMITS)
def test_cut_content_on_any_text_is_a_maximal_valid_prefix_within_the_limit(
    text: str, limit: int
) -> None:
    _assert_valid_cut(text, limit)


@given(data=st.binary(max_size=64), errors=st.sampled_from(["ignore", "replace"]), limit=_LIMITS)
def test_cut_content_on_leniently_decoded_bytes_is_a_maximal_valid_prefix(
    data: bytes, errors: str, limit: int
) -> None:
    _assert_valid_cut(data.decode("utf-8", errors), limit)


@given(data=st.binary(max_size=64), limit=_LIMITS)
def test_cut_content_on_surrogateescape_decoded_bytes_cuts_validly_or_rejects(
    data: bytes, limit: int
) -> None:
    _assert_cut_or_rejected(data.decode("utf-8", "surrogateescape"), limit)


@given(
    chars=st.lists(st.one_of(st.characters(), _LONE_SURROGATES), max_size=32),
    limit=_LIMITS,
)
def test_cut_content_on_surrogatepass_decoded_bytes_cuts_validly_or_rejects(
    chars: list[str], limit: int
) -> None:
    # surrogatepass only decodes bytes that are UTF-8 apart from encoded surrogates, so the
    # bytes are built from such characters rather than drawn at random.
    data = "".join(chars).encode("utf-8", "surrogatepass")
    _assert_cut_or_rejected(data.decode("utf-8", "surrogatepass"), limit)


def _items(contents: list[str], part: ContextPart) -> list[ContextItem]:
    """Ascending elements of one part from their contents."""
    return [
        ContextItem(f"{part}-{seq}", seq, content, part)
        for seq, content in enumerate(contents, start=1)
    ]


_CONTENTS = st.lists(st.text(alphabet=_MULTI_BYTE, max_size=12), max_size=8)


@given(channel_contents=_CONTENTS, thread_contents=_CONTENTS, max_total=_LIMITS)
def test_fit_budget_keeps_a_maximal_contiguous_newest_suffix_within_the_limit(
    channel_contents: list[str], thread_contents: list[str], max_total: int
) -> None:
    channel = _items(channel_contents, ContextPart.CHANNEL)
    thread = _items(thread_contents, ContextPart.THREAD)

    kept_channel, kept_thread = fit_budget(channel, thread, max_total)

    timeline = channel + thread
    kept = kept_channel + kept_thread
    assert kept == timeline[len(timeline) - len(kept) :]
    if kept_channel:
        assert kept_thread == thread
    total = sum(item.content_bytes for item in kept)
    assert total <= max_total
    if len(kept) < len(timeline):
        next_older = timeline[len(timeline) - len(kept) - 1]
        assert total + next_older.content_bytes > max_total


@given(
    channel_contents=_CONTENTS,
    thread_contents=_CONTENTS,
    message_max=st.integers(min_value=0, max_value=20),
    total_max=_LIMITS,
    has_older=st.booleans(),
)
def test_shape_windows_cuts_every_element_and_keeps_the_total_within_both_limits(
    channel_contents: list[str],
    thread_contents: list[str],
    message_max: int,
    total_max: int,
    has_older: bool,
) -> None:
    channel = _items(channel_contents, ContextPart.CHANNEL)
    thread = _items(thread_contents, ContextPart.THREAD)
    trigger_seq = len(thread) + 1

    shaped = shape_windows(
        channel,
        thread,
        has_older=has_older,
        trigger_seq=trigger_seq,
        message_max_bytes=message_max,
        total_max_bytes=total_max,
    )

    originals = {item.message_id: item for item in channel + thread}
    kept = shaped.channel + shaped.thread
    for item in kept:
        original = originals[item.message_id]
        assert item.content_bytes <= message_max
        assert original.content_md.startswith(item.content_md)
        assert item.truncated == (original.content_bytes > message_max)
    assert sum(item.content_bytes for item in kept) <= total_max
    if has_older or len(shaped.thread) < len(thread):
        expected = shaped.thread[0].thread_seq if shaped.thread else trigger_seq
        assert shaped.truncated_before_seq == expected
    else:
        assert shaped.truncated_before_seq is None
