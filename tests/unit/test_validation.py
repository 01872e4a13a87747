"""Request validation: 400 for unparsable JSON, 422 naming paths, never echoing values."""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from connexion.json_schema import Draft4RequestValidator
from connexion.validators.parameter import ParameterValidator
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InvalidRequest, ValidationFailed
from app.http.routes import load_spec
from app.http.validation import (
    FORMAT_CHECKER,
    ProblemJSONBodyValidator,
    ProblemParameterValidator,
    _field_error,
    _RequestValidator,
    validator_map,
)

SECRET = "echo-canary-value-5d1"


def _schema(name: str) -> dict[str, Any]:
    """A component schema whose ``#/components/...`` references still resolve."""
    spec = load_spec()
    return {**spec["components"]["schemas"][name], "components": spec["components"]}


def _body_validator(name: str = "PostMessageRequest") -> ProblemJSONBodyValidator:
    return ProblemJSONBodyValidator(schema=_schema(name), encoding="utf-8", strict_validation=True)


def _errors(body: Any, name: str = "PostMessageRequest") -> list[dict[str, str]]:
    with pytest.raises(ValidationFailed) as caught:
        _body_validator(name)._validate(body)
    assert caught.value.status == 422
    assert caught.value.code == "validation_failed"
    return caught.value.errors


def _parse(raw: bytes) -> Any:
    async def stream() -> AsyncIterator[bytes]:
        yield raw

    return asyncio.run(_body_validator()._parse(stream(), {}))


def test_a_valid_body_passes() -> None:
    assert _body_validator()._validate({"content_md": "hi", "client_request_id": "a:1"}) is None


def test_an_unknown_field_is_named_but_its_value_is_not() -> None:
    errors = _errors({"content_md": SECRET, "zeta": SECRET, "alpha": 1})

    assert errors == [{"path": "body", "message": "unknown field(s): alpha, zeta"}]


def test_a_missing_required_field_is_named() -> None:
    assert _errors({"client_request_id": SECRET}) == [
        {"path": "body", "message": "missing required field(s): content_md"}
    ]


@pytest.mark.parametrize(
    ("body", "path", "keyword"),
    [
        ({"content_md": ""}, "body/content_md", "minLength"),
        ({"content_md": SECRET * 10_000}, "body/content_md", "maxLength"),
        ({"content_md": 5}, "body/content_md", "type"),
        (
            {"content_md": "x", "client_request_id": f"{SECRET} !"},
            "body/client_request_id",
            "pattern",
        ),
        ({"content_md": "x", "reply_to_message_id": SECRET}, "body/reply_to_message_id", "format"),
    ],
)
def test_a_violation_names_the_path_and_keyword_without_the_value(
    body: dict[str, Any], path: str, keyword: str
) -> None:
    errors = _errors(body)

    assert errors == [{"path": path, "message": f"violates '{keyword}'"}]
    assert SECRET not in repr(errors)


def test_every_violation_is_listed_sorted_by_path() -> None:
    errors = _errors({"content_md": "", "parent_message_id": "nope", "reply_to_message_id": 3})

    assert [e["path"] for e in errors] == [
        "body/content_md",
        "body/parent_message_id",
        "body/reply_to_message_id",
    ]


def test_nested_paths_are_joined_with_slashes() -> None:
    errors = _errors(
        {
            "subject": {"kind": "principal", "id": SECRET},
            "target": {"kind": "galaxy", "id": str(uuid.uuid4())},
            "level": "read",
        },
        name="CreateGrantRequest",
    )

    assert errors == [
        {"path": "body/subject/id", "message": "violates 'format'"},
        {"path": "body/target/kind", "message": "violates 'enum'"},
    ]


def test_a_body_that_is_not_an_object_is_422() -> None:
    assert _errors([SECRET]) == [{"path": "body", "message": "violates 'type'"}]


def test_an_absent_body_is_400() -> None:
    with pytest.raises(InvalidRequest):
        _body_validator()._validate(None)


@pytest.mark.parametrize(
    "raw", [b'{"content_md": "' + SECRET.encode(), b"{,}", b"\xff\xfe", b"[1,]"]
)
def test_unparsable_json_is_400_without_the_text(raw: bytes) -> None:
    with pytest.raises(InvalidRequest) as caught:
        _parse(raw)

    assert caught.value.status == 400
    assert SECRET not in str(caught.value)


def test_parsable_json_is_returned_and_an_empty_body_is_none() -> None:
    assert _parse(b'{"content_md": "x"}') == {"content_md": "x"}
    assert _parse(b"") is None


def test_field_error_never_quotes_the_instance_where_jsonschema_would() -> None:
    validator = Draft4RequestValidator(_schema("PostMessageRequest"), format_checker=FORMAT_CHECKER)
    errors = list(validator.iter_errors({"content_md": [SECRET], "note": SECRET}))

    assert any(SECRET in error.message for error in errors)
    formatted = [_field_error(error, "body") for error in errors]
    assert sorted(formatted, key=lambda e: e["path"]) == [
        {"path": "body", "message": "unknown field(s): note"},
        {"path": "body/content_md", "message": "violates 'type'"},
    ]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("3f1c1c3e-8b1a-4c1e-9b0a-1234567890ab", True),
        ("3F1C1C3E-8B1A-4C1E-9B0A-1234567890AB", True),
        ("3f1c1c3e8b1a4c1e9b0a1234567890ab", False),
        ("not-a-uuid", False),
        ("3f1c1c3e-8b1a-4c1e-9b0a-1234567890abc", False),
        ("", False),
    ],
)
def test_the_uuid_format_is_checked(value: str, ok: bool) -> None:
    assert FORMAT_CHECKER.conforms(value, "uuid") is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-29T12:00:00Z", True),
        ("2026-11-29T12:00:00.123456+02:00", True),
        ("2026-11-29t12:00:00z", True),
        ("2026-11-29T12:00:00", False),
        ("2026-11-29", False),
        ("2026-13-29T12:00:00Z", False),
        ("yesterday", False),
    ],
)
def test_a_date_time_needs_a_time_zone(value: str, ok: bool) -> None:
    assert FORMAT_CHECKER.conforms(value, "date-time") is ok


def test_the_validator_map_uses_the_problem_validators() -> None:
    mapping = validator_map()

    assert mapping["parameter"] is ProblemParameterValidator
    assert issubclass(ProblemParameterValidator, ParameterValidator)
    assert mapping["body"]["application/json"] is ProblemJSONBodyValidator
    assert mapping["body"]["application/problem+json"] is ProblemJSONBodyValidator


# ---------------------------------------------------------- bounded work (issue 19)


def _intent(name: str = "navigate_to") -> dict[str, Any]:
    return {"name": name, "plane": "client", "params": {"surface_key": "home"}}


def _resolve(**context: Any) -> dict[str, Any]:
    return {"context": {"version": 1, "providers": {}, **context}, "intents": []}


def _failure(body: Any, name: str) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        _body_validator(name)._validate(body)
    return caught.value


def test_an_array_beyond_its_max_items_is_one_violation_and_its_items_are_not_read() -> None:
    failure = _failure(
        {"context": {"version": 1, "providers": {}}, "intents": [{"bad": 1}] * 60_000},
        "SessionResolveRequest",
    )

    assert failure.errors == [{"path": "body/intents", "message": "violates 'maxItems'"}]
    assert failure.omitted == 0


def test_at_most_the_configured_number_of_violations_is_listed_and_the_rest_counted() -> None:
    failure = _failure(
        {"channel_id": str(uuid.uuid4()), "principal_ids": [SECRET] * 1000},
        "TriggerHoldersRequest",
    )

    assert len(failure.errors) == 20
    assert failure.omitted == 980
    assert all(e["message"] == "violates 'format'" for e in failure.errors)
    assert SECRET not in repr(failure.errors)


def test_unknown_fields_are_named_escaped_and_at_most_five() -> None:
    body = {"content_md": "x", **{f"k{i:05d}\udc80\x00{'z' * 200}": 1 for i in range(10_000)}}

    (error,) = _errors(body)

    assert error["path"] == "body"
    assert error["message"].startswith("unknown field(s): k00000\\udc80\\u0000zzz")
    assert error["message"].endswith(" and 9995 more")
    assert len(error["message"]) <= 512
    orjson.dumps(error)


def test_a_lone_surrogate_in_a_key_is_echoed_escaped() -> None:
    errors = _errors(_resolve(providers={"x\udc80/y": 5}), "SessionResolveRequest")

    assert errors == [{"path": "body/context/providers/x\\udc80~1y", "message": "violates 'type'"}]
    orjson.dumps(errors)


@pytest.mark.parametrize("key", ["nul\x00key", "lone\udc80key"])
def test_a_key_that_cannot_be_stored_is_refused_like_a_value(key: str) -> None:
    in_key = _errors(_resolve(providers={"deadlines": {key: 1}}), "SessionResolveRequest")
    in_value = _errors(_resolve(providers={"deadlines": {"a": key}}), "SessionResolveRequest")

    assert [e["message"] for e in in_key] == ["NUL or unpaired surrogate"]
    assert in_key[0]["path"].startswith("body/context/providers/deadlines/")
    assert [e["message"] for e in in_value] == ["NUL or unpaired surrogate"]
    orjson.dumps(in_key)


def test_the_relay_call_is_left_to_the_call_itself() -> None:
    body = {
        "session_id": "s-1",
        "call": {
            "call_id": "c1",
            "post_message": {"content_md": "a\x00", "client_request_id": "k"},
        },
    }

    assert _body_validator("RelayRequest")._validate(body) is None


def test_free_json_beyond_its_bounds_is_one_violation_at_its_path() -> None:
    bag = {"deep": [[1, 2], [3, [4e30]]]}

    errors = _errors(_resolve(later=bag), "SessionResolveRequest")

    assert errors == [{"path": "body/context/later/deep/1/1/0", "message": "violates 'maximum'"}]


def test_no_violation_quotes_the_instance() -> None:
    validator = _RequestValidator(_schema("SessionResolveRequest"), format_checker=FORMAT_CHECKER)
    huge = [SECRET] * 100_000

    errors = list(validator.iter_errors({"context": huge, "intents": huge}))

    assert errors
    assert all(SECRET not in error.message for error in errors)


def test_upper_case_ids_in_a_body_are_handed_on_in_lower_case() -> None:
    subject, target = str(uuid.uuid4()), str(uuid.uuid4())
    body: dict[str, Any] = {
        "subject": {"kind": "principal", "id": subject.upper()},
        "target": {"kind": "channel", "id": target.upper()},
        "level": "read",
    }
    validator = _body_validator("CreateGrantRequest")

    validator._validate(body)

    assert (body["subject"]["id"], body["target"]["id"]) == (subject, target)
    assert validator.MUTABLE_VALIDATION is True
    unchanged = _body_validator("CreateGrantRequest")
    unchanged._validate(body)
    assert unchanged.MUTABLE_VALIDATION is False


def _small_free_json() -> dict[str, Any]:
    """The spec's JsonValue with small bounds, to compare both checks exhaustively."""
    schema = copy.deepcopy(load_spec()["components"]["schemas"]["JsonValue"])
    branches = {branch.get("type"): branch for branch in schema["anyOf"]}
    branches["array"]["maxItems"] = 3
    branches["object"]["maxProperties"] = 2
    branches["number"]["minimum"], branches["number"]["maximum"] = -10, 10
    return {**schema, "components": {"schemas": {"JsonValue": schema}}}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(-20, 20) | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=2), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=400)
@given(_JSON)
def test_the_free_json_walk_agrees_with_the_union_it_replaces(value: Any) -> None:
    schema = _small_free_json()
    generic = Draft4RequestValidator(
        {k: v for k, v in schema.items() if k != "x-free-json"}, format_checker=FORMAT_CHECKER
    )
    walk = _RequestValidator(schema, format_checker=FORMAT_CHECKER)

    assert generic.is_valid(value) == walk.is_valid(value)
