"""JSON Schema keywords whose work is bounded by the schema, not by the instance.

jsonschema's own implementations are correct but trust the instance's size:

* ``items`` checks every item of an array even when ``maxItems`` already failed (60,000
  bad items are 60,000 violations), and ``properties``, ``additionalProperties`` and
  ``patternProperties`` every member of an object beyond ``maxProperties``;
* ``anyOf`` and ``oneOf`` collect every violation of every branch, nested ones
  included, into the error's context, and quote the whole instance in the message;
* ``additionalProperties: false`` puts every unknown name into one message.

The keywords here keep the verdicts and make the cost a function of the schema's
bounds: a size keyword that fails stops the member checks of the same schema (the size
keyword reports it), a union branch is looked at only up to its first violation (all
it takes to know the branch fails), and an unknown-field violation carries no list
(the message is built from a bounded prefix by the caller). :func:`bounded_validator`
extends a validator class with them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from jsonschema import Draft4Validator, ValidationError
from jsonschema.validators import extend

__all__ = ["bounded_validator"]

Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError]]

_ORIGINAL = Draft4Validator.VALIDATORS


def _over(validator: Any, instance: Any, schema: dict[str, Any], keyword: str, kind: str) -> bool:
    limit = schema.get(keyword)
    return isinstance(limit, int) and validator.is_type(instance, kind) and len(instance) > limit


def _array_members(original: Keyword) -> Keyword:
    """``original`` skipped for an array longer than the schema's ``maxItems``."""

    def check(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
        if _over(validator, instance, schema, "maxItems", "array"):
            return
        yield from original(validator, value, instance, schema)

    return check


def _object_members(original: Keyword) -> Keyword:
    """``original`` skipped for an object with more members than ``maxProperties``."""

    def check(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
        if _over(validator, instance, schema, "maxProperties", "object"):
            return
        yield from original(validator, value, instance, schema)

    return check


def _fails(validator: Any, instance: Any, subschema: Any, index: int) -> bool:
    """Whether ``instance`` breaks ``subschema``, looking only up to the first violation."""
    errors = validator.descend(instance, subschema, schema_path=index)
    return next(iter(errors), None) is not None


def _any_of(validator: Any, branches: Any, instance: Any, schema: dict[str, Any]) -> Any:
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
        name: _object_members(_ORIGINAL[name]) for name in ("properties", "patternProperties")
    }
    return extend(
        base,
        {
            **members,
            "additionalProperties": _object_members(_additional_properties),
            "items": _array_members(_ORIGINAL["items"]),
            "uniqueItems": _array_members(_ORIGINAL["uniqueItems"]),
            "anyOf": _any_of,
            "oneOf": _one_of,
        },
    )
