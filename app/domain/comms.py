"""Pure shaping of the runner relay: call validation, in-band errors, views.

No I/O. The relay's envelope (session id, the call union, member names and JSON
types) is checked by the OpenAPI schema and answered with Problem JSON; the *values*
of a call are checked here, with the same bounds as the messages API
(``PostMessageRequest`` and the ``limit``/``before_message_id`` parameters; a
contract test pins that they agree), and a violation becomes an in-band
``validation_failed`` answer, like every other failure of the call itself: text
PostgreSQL cannot store (NUL, an unpaired surrogate) included, which the HTTP layer
leaves to the call (``x-unstorable-text-in-band``). Ids are handed on in lower case,
like every id the HTTP layer validates.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from app.domain.text import is_unstorable
from app.errors import ApiError, FieldError, Forbidden, RateLimited, ValidationFailed

__all__ = [
    "CLIENT_REQUEST_ID_MAX",
    "CLIENT_REQUEST_ID_PATTERN",
    "CONTENT_MAX",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "LIMIT_MIN",
    "ListCall",
    "PostCall",
    "call_error",
    "is_uuid",
    "mint_container_name",
    "parse_call",
]

# The bounds of the messages API (openapi/openapi.yaml PostMessageRequest, LimitQuery).
CONTENT_MAX: Final = 65536
CLIENT_REQUEST_ID_MAX: Final = 128
CLIENT_REQUEST_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9._:-]+", re.ASCII)
LIMIT_MIN: Final = 1
LIMIT_MAX: Final = 100
LIMIT_DEFAULT: Final = 50

# In-band messages are bounded and single-line: they reach an agent's model.
_MESSAGE_MAX: Final = 200


@dataclass(frozen=True, slots=True)
class PostCall:
    """A validated ``post_message`` call; ``channel_id`` ``None`` means the home channel."""

    channel_id: str | None
    content_md: str
    client_request_id: str
    parent_message_id: str | None


@dataclass(frozen=True, slots=True)
class ListCall:
    """A validated ``list_messages`` call; ``channel_id`` ``None`` means the home channel."""

    channel_id: str | None
    limit: int
    before_message_id: str | None


_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", re.ASCII
)


def is_uuid(value: str) -> bool:
    """Whether ``value`` is a UUID in its hyphenated hex form (any case), exactly.

    The one check of the ``uuid`` format: the HTTP layer's schema validation uses it too.
    """
    return _UUID.fullmatch(value) is not None


def _channel(args: Mapping[str, Any], path: str, errors: list[FieldError]) -> str | None:
    if "channel_id" not in args:
        return None
    value = str(args["channel_id"])
    if not value.strip():
        errors.append(
            {
                "path": f"{path}/channel_id",
                "message": "must not be empty; omit it for the home channel",
            }
        )
    elif not is_uuid(value):
        errors.append({"path": f"{path}/channel_id", "message": "violates 'format'"})
    return value.lower()


def _optional_uuid(
    args: Mapping[str, Any], name: str, path: str, errors: list[FieldError]
) -> str | None:
    if name not in args:
        return None
    value = str(args[name])
    if not is_uuid(value):
        errors.append({"path": f"{path}/{name}", "message": "violates 'format'"})
    return value.lower()


def _post(args: Mapping[str, Any]) -> PostCall:
    path = "call/post_message"
    errors: list[FieldError] = []
    channel_id = _channel(args, path, errors)
    content = str(args.get("content_md", ""))
    if not 1 <= len(content) <= CONTENT_MAX:
        keyword = "minLength" if not content else "maxLength"
        errors.append({"path": f"{path}/content_md", "message": f"violates '{keyword}'"})
    elif is_unstorable(content):
        errors.append({"path": f"{path}/content_md", "message": "NUL or unpaired surrogate"})
    key = str(args.get("client_request_id", ""))
    if len(key) > CLIENT_REQUEST_ID_MAX:
        errors.append({"path": f"{path}/client_request_id", "message": "violates 'maxLength'"})
    elif not CLIENT_REQUEST_ID_PATTERN.fullmatch(key):
        errors.append({"path": f"{path}/client_request_id", "message": "violates 'pattern'"})
    parent = _optional_uuid(args, "parent_message_id", path, errors)
    if errors:
        raise ValidationFailed("The call does not match the messages API.", errors)
    return PostCall(channel_id, content, key, parent)


def _list(args: Mapping[str, Any]) -> ListCall:
    path = "call/list_messages"
    errors: list[FieldError] = []
    channel_id = _channel(args, path, errors)
    limit = args.get("limit", LIMIT_DEFAULT)
    if not isinstance(limit, int) or isinstance(limit, bool) or not LIMIT_MIN <= limit <= LIMIT_MAX:
        errors.append({"path": f"{path}/limit", "message": "violates 'minimum' or 'maximum'"})
    before = _optional_uuid(args, "before_message_id", path, errors)
    if errors:
        raise ValidationFailed("The call does not match the messages API.", errors)
    return ListCall(channel_id, int(limit), before)


def parse_call(call: Mapping[str, Any]) -> PostCall | ListCall:
    """The call of a relay envelope, with its values checked against the messages API.

    The schema already guarantees exactly one of ``post_message`` and
    ``list_messages`` with known members of the right JSON types.

    Raises:
        ValidationFailed: a value breaks a bound of the messages API, or ``channel_id``
            is present but empty or blank (absent means the home channel; an empty
            string is a mistake, never a silent redirect to the home channel).
    """
    if "post_message" in call:
        return _post(call["post_message"])
    return _list(call["list_messages"])


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _MESSAGE_MAX else flat[: _MESSAGE_MAX - 3] + "..."


def call_error(error: ApiError) -> dict[str, Any]:
    """The in-band ``{"code", "message", "reason"?}`` of a failed call.

    The code is the one a person gets over HTTP for the same failure; the message is
    the fixed text of the error (paths and keywords for a validation failure, never a
    submitted value), on one bounded line.
    """
    message = error.detail or error.title
    if isinstance(error, ValidationFailed) and error.errors:
        parts = "; ".join(f"{item['path']}: {item['message']}" for item in error.errors)
        message = f"{message} {parts}"
    if isinstance(error, RateLimited):
        message = f"{error.title}; retry after {error.retry_after} s."
    body: dict[str, Any] = {"code": error.code, "message": _one_line(message)}
    if isinstance(error, Forbidden):
        body["reason"] = error.reason
    return body


def mint_container_name() -> str:
    """A fresh, unguessable container name for a provisioned workspace."""
    return f"ws-{secrets.token_hex(16)}"
