"""JSON Schema keywords whose work is bounded by the schema, not by the instance.

jsonschema's own implementations are correct but trust the instance's size:

* ``items`` checks every item of an array even when ``maxItems`` already failed (60,000
  bad items are 60,000 violations), and ``properties``, ``additionalProperties`` and
  ``patternProperties`` every member of an object beyond ``maxProperties``;
* ``anyOf`` and ``oneOf`` collect every violation of every branch, nested ones
  included, into the error's context;
* messages quote the instance (``f"{instance!r} is too long"``): a megabyte-long
  array is rendered into a string for a message nobody reads;
* ``additionalProperties: false`` puts every unknown name into one message.

The keywords here keep the verdicts and make the cost a function of the schema's
bounds: a size keyword that fails stops the member checks of the same schema (the size
keyword reports it), a union branch is looked at only up to its first violation (all
it takes to know the branch fails), messages never quote the instance, and an
unknown-field violation carries no list (the caller names a bounded prefix).

Free JSON (the spec's ``JsonValue``, marked ``x-free-json``: any JSON value with
integers within 18 digits, arrays of at most ``maxItems`` and objects of at most
``maxProperties`` members) is checked by one iterative walk instead of a union per
value: a client's bag of a hundred thousand values costs one pass, and a value that
breaks it is reported once, at the path of its first violation.

:func:`bounded_validator` extends a validator class with all of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from jsonschema import Draft4Validator, ValidationError
from jsonschema.validators import extend

__all__ = ["FREE_JSON", "bounded_validator"]

# The extension that marks the spec's JsonValue (free JSON in a client's open bag).
FREE_JSON = "x-free-json"

Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError]]

_ORIGINAL = Draft4Validator.VALIDATORS


def _over(validator: Any, instance: Any, schema: dict[str, Any], keyword: str, kind: str) -> bool:
    limit = schema.get(keyword)
    return isinstance(limit, int) and validator.is_type(instance, kind) and len(instance) > limit


def _members_of(original: Keyword, size: str, kind: str) -> Keyword:
    """``original`` skipped for an instance of ``kind`` beyond the schema's ``size``
    keyword (``maxItems`` for an array's items, ``maxProperties`` for an object's
    members): the size keyword reports it."""

    def check(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
        if _over(validator, instance, schema, size, kind):
            return
        yield from original(validator, value, instance, schema)

    return check


def _fails(validator: Any, instance: Any, subschema: Any, index: int) -> bool:
    """Whether ``instance`` breaks ``subschema``, looking only up to the first violation."""
    errors = validator.descend(instance, subschema, schema_path=index)
    return next(iter(errors), None) is not None


def _any_of(validator: Any, branches: Any, instance: Any, schema: dict[str, Any]) -> Any:
    if schema.get(FREE_JSON) is True:
        return  # checked by _free_json, equal to this union
    if all(_fails(validator, instance, branch, index) for index, branch in enumerate(branches)):
        yield ValidationError("is not valid under any of the given schemas")


def _one_of(validator: Any, branches: Any, instance: Any, schema: dict[str, Any]) -> Any:
    valid = itertools.islice(
        (
            index
            for index, branch in enumerate(branches)
            if not _fails(validator, instance, branch, index)
        ),
        2,
    )
    matched = len(list(valid))
    if matched == 0:
        yield ValidationError("is not valid under any of the given schemas")
    elif matched > 1:
        yield ValidationError("is valid under more than one of the given schemas")


def _type(validator: Any, types: Any, instance: Any, schema: dict[str, Any]) -> Any:
    if instance is None and schema.get("nullable") is True:
        return
    expected = types if isinstance(types, list) else [types]
    if not any(validator.is_type(instance, kind) for kind in expected):
        yield ValidationError("has the wrong type")


def _enum(validator: Any, values: Any, instance: Any, schema: dict[str, Any]) -> Any:
    if instance is None and schema.get("nullable") is True:
        return
    if isinstance(instance, dict | list) and not any(isinstance(v, dict | list) for v in values):
        # No container can equal a scalar: no need to compare (or quote) it.
        yield ValidationError("is not one of the allowed values")
        return
    if any(True for _ in _ORIGINAL["enum"](validator, values, instance, schema)):
        yield ValidationError("is not one of the allowed values")


def _size(keyword: str, kind: str, too_many: bool) -> Keyword:
    def check(validator: Any, limit: Any, instance: Any, schema: dict[str, Any]) -> Any:
        if validator.is_type(instance, kind):
            size = len(instance)
            if (size > limit) if too_many else (size < limit):
                yield ValidationError(f"breaks {keyword}")

    return check


def _free_json(validator: Any, enabled: Any, instance: Any, schema: dict[str, Any]) -> Any:
    """The ``JsonValue`` schema in one walk (see the module docstring)."""
    if enabled is not True:
        return
    array_schema, object_schema, number_schema = _free_json_bounds(schema)
    max_items = array_schema.get("maxItems")
    max_members = object_schema.get("maxProperties")
    low, high = number_schema.get("minimum"), number_schema.get("maximum")
    # Each entry: a value and its trail, (parent trail, key) back to this value's root;
    # a path is built only for a violation.
    stack: list[tuple[Any, Any]] = [(instance, None)]
    while stack:
        item, trail = stack.pop()
        keyword = None
        if isinstance(item, str | bool) or item is None:
            continue
        if isinstance(item, int | float):
            if low is not None and item < low:
                keyword = "minimum"
            elif high is not None and item > high:
                keyword = "maximum"
        elif isinstance(item, list):
            if max_items is not None and len(item) > max_items:
                keyword = "maxItems"
            else:
                stack.extend((child, (trail, index)) for index, child in enumerate(item))
        elif isinstance(item, dict):
            if max_members is not None and len(item) > max_members:
                keyword = "maxProperties"
            else:
                stack.extend((child, (trail, key)) for key, child in item.items())
        if keyword is not None:
            path: list[Any] = []
            while trail is not None:
                trail, part = trail
                path.append(part)
            yield ValidationError(f"breaks {keyword}", validator=keyword, path=path[::-1])
            return


def _free_json_bounds(schema: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The array, object and number branches of a free JSON schema's ``anyOf``."""
    branches = {branch.get("type"): branch for branch in schema.get("anyOf", [])}
    return branches.get("array", {}), branches.get("object", {}), branches.get("number", {})


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: dict[str, Any]
) -> Any:
    if not validator.is_type(instance, "object"):
        return
    if "patternProperties" in schema:
        # Not used by the contract; jsonschema's own handles the regexes.
        yield from _ORIGINAL["additionalProperties"](validator, allowed, instance, schema)
        return
    known = schema.get("properties", {})
    extras = (name for name in instance if name not in known)
    if validator.is_type(allowed, "object"):
        for name in extras:
            yield from validator.descend(instance[name], allowed, path=name)
    elif allowed is False and next(extras, None) is not None:
        # The caller names a bounded prefix of the unknown fields (app.domain.echo).
        yield ValidationError("has unknown fields")


def bounded_validator(base: Any) -> Any:
    """``base`` (a Draft 4 validator class) with the bounded keywords of this module."""
    members = {
        name: _members_of(_ORIGINAL[name], "maxProperties", "object")
        for name in ("properties", "patternProperties")
    }
    return extend(
        base,
        {
            **members,
            "additionalProperties": _members_of(_additional_properties, "maxProperties", "object"),
            "items": _members_of(_ORIGINAL["items"], "maxItems", "array"),
            "uniqueItems": _members_of(_ORIGINAL["uniqueItems"], "maxItems", "array"),
            "anyOf": _any_of,
            "oneOf": _one_of,
            "type": _type,
            "enum": _enum,
            "maxItems": _size("maxItems", "array", too_many=True),
            "minItems": _size("minItems", "array", too_many=False),
            "maxProperties": _size("maxProperties", "object", too_many=True),
            "minProperties": _size("minProperties", "object", too_many=False),
            "maxLength": _size("maxLength", "string", too_many=True),
            "minLength": _size("minLength", "string", too_many=False),
            FREE_JSON: _free_json,
        },
    )
