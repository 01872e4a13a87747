"""Shared pieces of the wire contracts: the base model and the constrained strings.

Every contract model is frozen, every scalar field is strict (no coercion: ``"1"`` is
not an integer and ``true`` is not ``1``), and a declared field never takes JSON
``null``: an optional field that does not apply is absent, as everywhere on this
service's wire. Which
models are open (unknown fields ignored) and which are closed (unknown fields
rejected) is decided per model.

The constrained strings are checked with a full match (:func:`re.fullmatch`), so a
trailing newline cannot slip through the way it does with ``$``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = [
    "IDENTIFIER_MAX_LENGTH",
    "IDENTIFIER_PATTERN",
    "MAX_CONTEXT_MEMBERS",
    "MAX_ENTRY_MEMBERS",
    "MAX_INTEGER",
    "MAX_JSON_ITEMS",
    "MAX_JSON_MEMBERS",
    "SURFACE_KEY_MAX_LENGTH",
    "SURFACE_KEY_PATTERN",
    "BoundedInt",
    "ClosedContract",
    "Identifier",
    "OpenContract",
    "RouteValue",
    "SurfaceKey",
    "check_json_bounds",
    "is_surface_key",
    "nested_error",
]

# A durable surface key: lower-case letters, digits, "_", "." and "-". No slash, no
# scheme, no colon, no whitespace, no upper case: a key can never be a URL.
SURFACE_KEY_PATTERN = r"[a-z0-9_.-]+"
SURFACE_KEY_MAX_LENGTH = 128
# An opaque id in typed tool parameters (matter ids, navigation parameter values).
IDENTIFIER_PATTERN = r"[A-Za-z0-9_.-]+"
IDENTIFIER_MAX_LENGTH = 128

_SURFACE_KEY = re.compile(SURFACE_KEY_PATTERN)
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)


def is_surface_key(value: object) -> bool:
    """Whether ``value`` is a durable surface key (never URL-shaped)."""
    return (
        isinstance(value, str)
        and len(value) <= SURFACE_KEY_MAX_LENGTH
        and _SURFACE_KEY.fullmatch(value) is not None
    )


def _surface_key(value: str) -> str:
    if not is_surface_key(value):
        # The message never repeats the value: it may be anything a client sent.
        raise PydanticCustomError(
            "surface_key",
            "a surface key holds only lower-case letters, digits, '_', '.' and '-' "
            "(at most {max_length} characters): never a URL, path, scheme or colon",
            {"max_length": SURFACE_KEY_MAX_LENGTH},
        )
    return value


def _identifier(value: str) -> str:
    if len(value) > IDENTIFIER_MAX_LENGTH or _IDENTIFIER.fullmatch(value) is None:
        raise PydanticCustomError(
            "identifier",
            "an identifier holds only letters, digits, '_', '.' and '-' "
            "(at most {max_length} characters)",
            {"max_length": IDENTIFIER_MAX_LENGTH},
        )
    return value


def _route_value(value: str | int | bool) -> str | int | bool:
    if isinstance(value, str):
        return _identifier(value)
    return value


SurfaceKey = Annotated[StrictStr, AfterValidator(_surface_key)]
"""A durable surface key such as ``matters.list``: rejects anything URL-shaped."""

Identifier = Annotated[StrictStr, AfterValidator(_identifier)]
"""An opaque id (letters, digits, ``_``, ``.``, ``-``): no slash, colon or whitespace."""

MAX_INTEGER = 999_999_999_999_999_999
"""The largest integer the service accepts anywhere in a request: 18 digits, which
fits a signed 64-bit integer (``http.max_json_integer_digits`` on the server)."""

BoundedInt = Annotated[StrictInt, Field(ge=-MAX_INTEGER, le=MAX_INTEGER)]
"""An integer within :data:`MAX_INTEGER` either way."""

RouteValue = Annotated[StrictStr | BoundedInt | StrictBool, AfterValidator(_route_value)]
"""The value of a navigation parameter: an identifier, an integer or a boolean."""


MAX_JSON_ITEMS = 200
"""Values one array of free JSON in a bag may hold (``JsonValue`` in the spec)."""

MAX_JSON_MEMBERS = 64
"""Members one object of free JSON may hold: a provider, tool params, a ``JsonValue``."""

MAX_ENTRY_MEMBERS = 32
"""Members of one entry of a provider's list (a surface, a client tool)."""

MAX_CONTEXT_MEMBERS = 16
"""Top-level members of the context bag (``version``, ``providers`` and newer ones)."""


def check_json_bounds(value: Any) -> None:
    """Refuse free JSON with an array beyond :data:`MAX_JSON_ITEMS` values or an object
    beyond :data:`MAX_JSON_MEMBERS` members, at any depth.

    The bounds of the spec's ``JsonValue``: the work one bag can cause is bounded.
    Iterative, so a deep value cannot exhaust the stack.

    Raises:
        PydanticCustomError: a bound is exceeded.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if len(item) > MAX_JSON_MEMBERS:
                raise _json_bounds()
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            if len(item) > MAX_JSON_ITEMS:
                raise _json_bounds()
            stack.extend(item)


def _json_bounds() -> PydanticCustomError:
    return PydanticCustomError(
        "json_bounds",
        "free JSON holds at most {items} values per array and {members} members per object",
        {"items": MAX_JSON_ITEMS, "members": MAX_JSON_MEMBERS},
    )


def _bounded_object(data: Any, members: int) -> None:
    if isinstance(data, dict) and len(data) > members:
        raise PydanticCustomError(
            "too_many_members", "at most {members} members", {"members": members}
        )


class _Contract(BaseModel):
    """Frozen, strict, and no JSON ``null`` for a declared field."""

    @model_validator(mode="before")
    @classmethod
    def _no_null_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, field in cls.model_fields.items():
                key = field.alias or name
                if key in data and data[key] is None:
                    raise PydanticCustomError(
                        "null_field",
                        "'{field}' must be omitted instead of being null",
                        {"field": key},
                    )
        return data


class OpenContract(_Contract):
    """A contract that ignores unknown fields (forward compatible: newer senders).

    Open, but bounded like the spec's open objects: at most :attr:`max_members`
    members, and the values of unknown ones within :func:`check_json_bounds`.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)
    max_members: ClassVar[int] = MAX_JSON_MEMBERS

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        _bounded_object(data, cls.max_members)
        if isinstance(data, dict):
            declared = {field.alias or name for name, field in cls.model_fields.items()}
            for key, value in data.items():
                if key not in declared:
                    check_json_bounds(value)
        return data


class ClosedContract(_Contract):
    """A contract that rejects unknown fields (junk fails loud at the boundary)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def nested_error(
    title: str, error: ValidationError, prefix: Sequence[str | int]
) -> ValidationError:
    """``error`` rebuilt under ``prefix``: the locations of a nested validation.

    Used where a model validates a part of itself lazily (a provider, tool params) and
    must report the part's errors at their full path, not at the model's root. Error
    types pydantic knows keep their type and context; custom ones keep type and text.
    """
    details: list[InitErrorDetails] = []
    for item in error.errors():
        loc = (*prefix, *item["loc"])
        try:
            builtin: InitErrorDetails = {"type": item["type"], "loc": loc, "input": item["input"]}
            if "ctx" in item:
                builtin["ctx"] = item["ctx"]
            # Raises when the type is a custom one or its context does not fit.
            ValidationError.from_exception_data(title, [builtin])
            details.append(builtin)
        except (KeyError, TypeError):
            custom = PydanticCustomError(item["type"], item["msg"])
            details.append({"type": custom, "loc": loc, "input": item["input"]})
    return ValidationError.from_exception_data(title, details)
