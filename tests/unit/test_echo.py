"""Echoes of client-chosen keys in errors: escaped, cut, unambiguous (issue 19)."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from app.domain.echo import ECHO_MAX, PATH_MAX, echo, join_path, name_list, pointer_segment


def test_controls_surrogates_and_the_backslash_are_escaped() -> None:
    assert echo("a\x00b\udc80c\\d\n\u2028") == "a\\u0000b\\udc80c\\\\d\\u000a\\u2028"


def test_ordinary_text_is_kept_as_it_is() -> None:
    assert echo("größe 日本 🙂") == "größe 日本 🙂"


def test_a_long_key_keeps_a_bounded_prefix() -> None:
    cut = echo("k" * 1_000_000)

    assert len(cut) == ECHO_MAX
    assert cut.endswith("...")


def test_a_path_segment_is_a_json_pointer_segment() -> None:
    assert pointer_segment("a/b~c") == "a~1b~0c"
    assert join_path("body", ["context", "providers", "x/y", 3]) == (
        "body/context/providers/x~1y/3"
    )


def test_a_deep_path_is_cut() -> None:
    path = join_path("body", ["k" * 60] * 100)

    assert len(path) <= PATH_MAX
    assert path.startswith("body/kkk")


def test_a_name_list_shows_five_and_counts_the_rest() -> None:
    assert name_list(["a", "b"]) == "a, b"
    assert name_list(f"n{i}" for i in range(12)) == "n0, n1, n2, n3, n4 and 7 more"


@given(st.text())
def test_every_echo_is_bounded_and_encodable(text: str) -> None:
    for rendered in (echo(text), pointer_segment(text), join_path("body", [text, text])):
        assert len(rendered) <= PATH_MAX
        orjson.dumps(rendered)  # never raises: no lone surrogate survives
        assert "\n" not in rendered
