"""Pure shaping of the relay: call values checked with the messages API's bounds."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.domain import comms
from app.domain.comms import ListCall, PostCall, call_error, mint_container_name, parse_call
from app.errors import Conflict, Forbidden, NotFound, RateLimited, ValidationFailed
from app.http.routes import load_spec

CHANNEL = "c4a00000-0000-4000-8000-000000000010"


def _post(**fields: Any) -> dict[str, Any]:
    return {
        "call_id": "c1",
        "post_message": {"content_md": "Hi", "client_request_id": "k", **fields},
    }


def test_a_post_without_a_channel_means_the_home_channel() -> None:
    assert parse_call(_post()) == PostCall(None, "Hi", "k", None)


def test_a_list_defaults_to_fifty() -> None:
    assert parse_call({"call_id": "c", "list_messages": {}}) == ListCall(None, 50, None)


@pytest.mark.parametrize("channel_id", ["", " ", "\n\t"])
def test_an_empty_or_blank_channel_is_rejected(channel_id: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse_call(_post(channel_id=channel_id))
    assert raised.value.errors[0]["path"] == "call/post_message/channel_id"


@pytest.mark.parametrize(
    "call",
    [
        _post(content_md=""),
        _post(content_md="x" * (comms.CONTENT_MAX + 1)),
        _post(client_request_id="a b"),
        _post(client_request_id="k" * (comms.CLIENT_REQUEST_ID_MAX + 1)),
        _post(client_request_id="k\n"),
        _post(channel_id="general"),
        _post(parent_message_id=CHANNEL + "\n"),
        {"call_id": "c", "list_messages": {"limit": 0}},
        {"call_id": "c", "list_messages": {"limit": 101}},
        {"call_id": "c", "list_messages": {"limit": True}},
        {"call_id": "c", "list_messages": {"before_message_id": "x"}},
    ],
)
def test_values_beyond_the_bounds_are_rejected(call: dict[str, Any]) -> None:
    with pytest.raises(ValidationFailed):
        parse_call(call)


def test_the_bounds_are_the_messages_apis() -> None:
    spec = load_spec()
    schema = spec["components"]["schemas"]["PostMessageRequest"]["properties"]
    limit = spec["components"]["parameters"]["LimitQuery"]["schema"]

    assert (schema["content_md"]["minLength"], schema["content_md"]["maxLength"]) == (
        1,
        comms.CONTENT_MAX,
    )
    key = schema["client_request_id"]
    assert key["maxLength"] == comms.CLIENT_REQUEST_ID_MAX
    assert key["pattern"] == f"^{comms.CLIENT_REQUEST_ID_PATTERN.pattern}$"
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (
        comms.LIMIT_MIN,
        comms.LIMIT_MAX,
        comms.LIMIT_DEFAULT,
    )


def test_in_band_errors_carry_the_code_a_person_gets() -> None:
    assert call_error(NotFound()) == {"code": "not_found", "message": "Not found"}
    assert call_error(Forbidden("no_grant")) == {
        "code": "forbidden",
        "message": "Forbidden",
        "reason": "no_grant",
    }
    assert call_error(Conflict("Used elsewhere."))["code"] == "conflict"
    assert call_error(RateLimited(3))["message"] == "Too many requests; retry after 3 s."


def test_a_validation_error_names_paths_on_one_bounded_line() -> None:
    errors = [
        {"path": f"call/post_message/f{i}", "message": "violates 'x'\nnext"} for i in range(40)
    ]

    body = call_error(ValidationFailed("The call does not match.", errors))

    assert body["code"] == "validation_failed"
    assert "\n" not in body["message"]
    assert len(body["message"]) <= 200


def test_container_names_are_fresh_and_fit_the_contract() -> None:
    names = {mint_container_name() for _ in range(50)}
    assert len(names) == 50
    assert all(name.startswith("ws-") and len(name) == 35 for name in names)


@pytest.mark.parametrize("content", ["nul \x00 inside", "lone \ud800 surrogate"])
def test_text_that_cannot_be_stored_is_refused_in_band(content: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_call({"post_message": {"content_md": content, "client_request_id": "k"}})

    assert caught.value.errors == [
        {"path": "call/post_message/content_md", "message": "NUL or unpaired surrogate"}
    ]


def test_ids_of_a_call_are_handed_on_in_lower_case() -> None:
    channel, parent = str(uuid.uuid4()), str(uuid.uuid4())

    post = parse_call(
        {
            "post_message": {
                "content_md": "x",
                "client_request_id": "k",
                "channel_id": channel.upper(),
                "parent_message_id": parent.upper(),
            }
        }
    )
    listing = parse_call({"list_messages": {"before_message_id": parent.upper()}})

    assert isinstance(post, PostCall)
    assert (post.channel_id, post.parent_message_id) == (channel, parent)
    assert isinstance(listing, ListCall)
    assert listing.before_message_id == parent
