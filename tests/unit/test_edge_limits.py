"""Bounded input without I/O: safe JSON parsing, the body limit, Content-Type, 405 index,
strict formats, and library log lines formatted with their arguments."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import warnings
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.errors import InvalidRequest, PayloadTooLarge, UnsupportedMediaType
from app.http.admission import check_json_content_type
from app.http.body_limit import BodyLimitMiddleware
from app.http.edge import EdgeMiddleware, normal_media_type
from app.http.routes import MethodIndex, load_spec
from app.http.safe_json import containers_exceed, nesting_exceeds, parse_json_body
from app.http.validation import FORMAT_CHECKER, _ecma_regex
from app.logs import JsonFormatter, configure_logging

UUID = "3f1c1c3e-8b1a-4c1e-9b0a-1234567890ab"


def _parse(raw: bytes) -> Any:
    return parse_json_body(raw, max_depth=32, max_integer_digits=20, max_containers=10_000)


# ------------------------------------------------------------------- safe JSON


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[" * 1000 + b"]" * 1000, id="1000-levels"),
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="100000-levels"),
        pytest.param(b'{"a":' * 33 + b"1" + b"}" * 33, id="33-levels"),
        pytest.param(b'{"n": ' + b"9" * 4301 + b"}", id="4301-digit-integer"),
        pytest.param(b'{"n": -' + b"9" * 21 + b"}", id="21-digit-integer"),
        pytest.param(b'{"n": NaN}', id="nan"),
        pytest.param(b'{"n": -Infinity}', id="infinity"),
        pytest.param(b'{"n": 1e400}', id="float-overflow"),
        pytest.param(b'{"a": "\xff"}', id="not-utf8"),
        pytest.param(b"{,}", id="malformed"),
    ],
)
def test_a_hostile_body_is_400_invalid_request(raw: bytes) -> None:
    with pytest.raises(InvalidRequest) as caught:
        _parse(raw)

    assert caught.value.status == 400
    assert caught.value.code == "invalid_request"


def test_a_body_within_the_limits_parses() -> None:
    nested: Any = 1
    for _ in range(31):
        nested = [nested]

    assert _parse(json.dumps(nested).encode()) == nested
    assert _parse(b'{"n": -' + b"9" * 20 + b', "f": 1.5}') == {"n": -int("9" * 20), "f": 1.5}


def test_nesting_depth_counts_arrays_and_objects() -> None:
    assert not nesting_exceeds({"a": [1, {"b": []}]}, 4)
    assert nesting_exceeds({"a": [1, {"b": []}]}, 3)
    assert not nesting_exceeds("scalar", 1)


# ------------------------------------------------------------------ body limit


def _run_limited(
    limit: int, chunks: list[bytes], content_length: int | None
) -> tuple[bytes, Exception | None]:
    """Feed ``chunks`` through the middleware to an app that reads the whole body."""
    queue = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]
    pulled: list[int] = []

    async def receive() -> Message:
        pulled.append(1)
        return queue.pop(0)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        received.append(body)

    async def send(_message: Message) -> None:
        pass

    received: list[bytes] = []
    headers = [] if content_length is None else [(b"content-length", str(content_length).encode())]
    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    error: Exception | None = None
    try:
        asyncio.run(BodyLimitMiddleware(app, limit)(scope, receive, send))
    except PayloadTooLarge as exc:
        error = exc
    return (received[0] if received else b""), error if error is None else _pulled(error, pulled)


def _pulled(error: Exception, pulled: list[int]) -> Exception:
    error.args = (*error.args, len(pulled))
    return error


def test_a_body_within_the_limit_passes_whole() -> None:
    body, error = _run_limited(10, [b"12345", b"67890"], 10)

    assert (body, error) == (b"1234567890", None)


def test_a_declared_length_above_the_limit_is_refused_before_any_chunk_is_read() -> None:
    _body, error = _run_limited(10, [b"x" * 11], 11)

    assert isinstance(error, PayloadTooLarge)
    assert error.status == 413
    assert error.args[-1] == 0  # not one receive() call


def test_a_chunked_body_is_cut_off_at_the_chunk_that_crosses_the_limit() -> None:
    _body, error = _run_limited(10, [b"x" * 6, b"x" * 6, b"x" * 6, b"x" * 6], None)

    assert isinstance(error, PayloadTooLarge)
    assert error.args[-1] == 2  # the third and fourth chunks were never pulled


def test_a_body_that_lies_about_its_length_is_cut_off_too() -> None:
    _body, error = _run_limited(10, [b"x" * 8, b"x" * 8], 5)

    assert isinstance(error, PayloadTooLarge)


# ---------------------------------------------------------------- Content-Type


@pytest.mark.parametrize(
    "value",
    [
        "application/json",
        "Application/JSON",
        "application/json; charset=utf-8",
        "application/json;charset=UTF8",
    ],
)
def test_json_content_types_are_accepted(value: str) -> None:
    check_json_content_type(value)


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin-1",
    ],
)
def test_other_content_types_are_415(value: str | None) -> None:
    with pytest.raises(UnsupportedMediaType) as caught:
        check_json_content_type(value)

    assert caught.value.status == 415
    assert caught.value.code == "unsupported_media_type"


# --------------------------------------------------------------------- methods


def test_the_method_index_lists_declared_methods_per_path_template() -> None:
    index = MethodIndex(load_spec())

    assert index.allowed("/healthz") == ("GET", "HEAD")
    assert index.allowed(f"/api/v1/channels/{UUID}/messages") == ("GET", "HEAD", "POST")
    assert index.allowed("/api/v1/admin/grants") == ("POST",)
    assert index.allowed("/api/v1/channels/a/b/messages") is None
    assert index.allowed("/nowhere") is None


# --------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (UUID, True),
        (UUID.upper(), True),
        (UUID + "\n", False),
        (UUID + "\r\n", False),
        ("\n" + UUID, False),
        (UUID[:-1], False),
    ],
)
def test_a_uuid_matches_whole(value: str, ok: bool) -> None:
    assert FORMAT_CHECKER.conforms(value, "uuid") is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-29T10:00:00Z", True),
        ("2026-11-29t10:00:00.123456789+15:59", True),
        ("2026-11-29T10:00:00-15:59", True),
        ("2026-11-29T10:00:00+16:00", False),
        ("2026-11-29T10:00:00-23:59", False),
        ("0000-01-01T00:00:00Z", False),
        ("0001-01-01T00:00:00+01:00", False),  # before year 1 in UTC
        ("9999-12-31T23:00:00-01:00", False),  # after year 9999 in UTC
        ("2026-02-30T10:00:00Z", False),
        ("2026-11-29T24:00:00Z", False),
        ("2026-11-29T10:00Z", False),
        ("2026-11-29 10:00:00Z", False),
        ("2026-11-29T10:00:00", False),
        ("2026-11-29T10:00:00Z\n", False),
    ],
)
def test_a_date_time_is_rfc_3339_within_what_postgresql_stores(value: str, ok: bool) -> None:
    assert FORMAT_CHECKER.conforms(value, "date-time") is ok


def test_a_pattern_dollar_ends_the_input_as_in_ecma_262() -> None:
    pattern = _ecma_regex("^[A-Za-z0-9._:-]+$")

    assert pattern.search("abc-1")
    assert not pattern.search("abc-1\n")
    assert _ecma_regex("^[$]x\\$$").search("$x$")


# ------------------------------------------------------------------------ logs


def test_library_records_are_formatted_with_their_arguments() -> None:
    record = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, "Started server process [%d]", (4242,), None
    )

    entry = json.loads(JsonFormatter().format(record))

    assert entry["msg"] == "Started server process [4242]"
    assert entry["logger"] == "uvicorn.error"


def test_a_record_whose_arguments_do_not_fit_keeps_its_format_string() -> None:
    record = logging.LogRecord("lib", logging.WARNING, __file__, 1, "two %s %s", ("one",), None)

    assert json.loads(JsonFormatter().format(record))["msg"] == "two %s %s"


def test_sqlalchemy_never_logs_result_rows_even_at_debug() -> None:
    sqlalchemy = logging.getLogger("sqlalchemy")
    previous = sqlalchemy.level
    try:
        configure_logging("DEBUG", io.StringIO())

        assert not logging.getLogger("sqlalchemy.engine.Engine").isEnabledFor(logging.DEBUG)
    finally:
        sqlalchemy.setLevel(previous)
        logging.getLogger().handlers.clear()


def test_arrays_and_objects_are_counted_before_parsing_outside_strings() -> None:
    many = b"[" + b",".join([b"{}"] * 11) + b"]"
    in_text = b'{"a": "' + b"[{" * 100 + b'\\" [ {"}'

    assert containers_exceed(many, 10)
    assert not containers_exceed(many, 12)
    assert not containers_exceed(in_text, 10)
    with pytest.raises(InvalidRequest, match="too many arrays"):
        parse_json_body(many, max_depth=32, max_integer_digits=18, max_containers=10)


def test_a_long_run_of_digits_in_a_string_is_no_integer() -> None:
    assert _parse(b'{"id": "' + b"9" * 40 + b'", "n": 7}') == {"id": "9" * 40, "n": 7}


@pytest.mark.parametrize(
    ("value", "normal"),
    [
        ("APPLICATION/JSON", "application/json"),
        ("Application/json; Charset=UTF-8", "application/json; charset=UTF-8"),
        ("application/JSON;charset=utf-8", "application/json; charset=utf-8"),
    ],
)
def test_media_types_are_lower_cased_but_not_parameter_values(value: str, normal: str) -> None:
    assert normal_media_type(value) == normal


def _edge(path: str, headers: list[tuple[bytes, bytes]]) -> tuple[list[Message], Scope | None]:
    seen: list[Scope] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "GET", "path": path, "headers": headers}
    asyncio.run(EdgeMiddleware(app, open_prefixes=("/ui/",))(scope, receive, send))
    return sent, seen[0] if seen else None


@pytest.mark.parametrize("path", ["/api/v1/runs/x/context/", "/healthz/", "/api/v1/"])
def test_a_trailing_slash_is_404_problem_json_without_a_location(path: str) -> None:
    sent, seen = _edge(path, [(b"host", b"evil.example")])

    assert seen is None
    start = sent[0]
    assert start["status"] == 404
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/problem+json"
    assert b"location" not in headers
    assert json.loads(sent[1]["body"])["code"] == "not_found"


def test_swagger_ui_keeps_its_slash_and_content_types_reach_connexion_lower_cased() -> None:
    _sent, ui = _edge("/ui/", [])
    _sent, body = _edge("/api/v1/x", [(b"content-type", b"APPLICATION/JSON")])

    assert ui is not None
    assert body is not None
    assert dict(body["headers"])[b"content-type"] == b"application/json"


def test_a_python_warning_is_a_json_log_line() -> None:
    stream = io.StringIO()
    configure_logging("INFO", stream)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            # pytest's own warning capture replaced the hook: route it again inside.
            configure_logging("INFO", stream)
            warnings.warn("a library is deprecated", DeprecationWarning, stacklevel=1)
    finally:
        logging.getLogger().handlers.clear()
        logging.captureWarnings(False)

    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["logger"] == "py.warnings"
    assert entry["level"] == "WARNING"
    assert "DeprecationWarning: a library is deprecated" in entry["msg"]
