"""Contract tests of ``openapi/openapi.yaml``: the shape of its schemas.

Without PostgreSQL or OPA: every object schema under ``components/schemas`` is closed
(``additionalProperties: false``) unless it is one of the declared open bags, no
schema the service answers with is ``nullable``, and ``RunContext`` follows
``run_context.v1``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from tests.contract.openapi_document import iter_operations

# Object schemas that are deliberately open (additionalProperties: true, or a schema
# for the values of unknown keys), by location below components/schemas. Each must
# also carry ``x-open-bag: true``.
OPEN_BAGS = frozenset(
    {
        "ExplainResponse/properties/input",
        # The per-turn session context bag and its providers (decisions.md S3): open so that
        # newer clients still parse.
        "AgentSessionContext",
        "SessionProviders",
        "SessionProviders/additionalProperties",
        "SurfaceProvider",
        "SurfaceEntry",
        "CurrentPageContext",
        "KnowledgeBaseProvider",
        "PermissionsProvider",
        "ClientToolsProvider",
        "ClientToolEntry",
        # Params of tools this version does not type, route parameters of a
        # navigation (typed values), proposed field values.
        "ToolParams",
        "NavigateParams/properties/params",
        "ProposeMatterWriteParams/properties/changes",
        # Any JSON value inside those bags (integers bounded to 64 bits).
        "JsonValue/anyOf/4",
    }
)


def _walk_schema(schema: Any, location: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield a schema and every inline subschema with its location.

    ``$ref`` targets are not followed: each referenced component is visited on its
    own when the caller walks ``components/schemas``.

    Args:
        schema: A schema object.
        location: Its location, used in failure messages.

    Yields:
        ``(location, schema)`` pairs.
    """
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    yield location, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _walk_schema(sub, f"{location}/properties/{name}")
    for key in ("items", "not", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from _walk_schema(schema[key], f"{location}/{key}")
    for key in ("allOf", "anyOf", "oneOf"):
        for index, sub in enumerate(schema.get(key, [])):
            yield from _walk_schema(sub, f"{location}/{key}/{index}")


def _walk_keys(node: Any, location: str = "#") -> Iterator[tuple[str, str, Any]]:
    """Yield every mapping key of the document with its location and value.

    Args:
        node: Any part of the parsed document.
        location: Its location.

    Yields:
        ``(location, key, value)`` for every key of every mapping.
    """
    if isinstance(node, dict):
        for key, value in node.items():
            yield location, str(key), value
            yield from _walk_keys(value, f"{location}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_keys(value, f"{location}/{index}")


def _is_object_schema(schema: dict[str, Any]) -> bool:
    """Whether a schema describes a JSON object."""
    return schema.get("type") == "object" or "properties" in schema


def test_object_schemas_are_closed(spec: dict[str, Any]) -> None:
    """Every object schema under components/schemas is closed except the open bags."""
    seen_open: set[str] = set()
    for name, schema in spec["components"]["schemas"].items():
        for location, sub in _walk_schema(schema, name):
            if not _is_object_schema(sub):
                continue
            if location in OPEN_BAGS:
                seen_open.add(location)
                open_values = sub.get("additionalProperties")
                assert open_values is True or isinstance(open_values, dict), location
                assert sub.get("x-open-bag") is True, location
            else:
                assert sub.get("additionalProperties") is False, location
                assert "x-open-bag" not in sub, location
    assert seen_open == OPEN_BAGS


def test_no_schema_is_nullable(spec: dict[str, Any]) -> None:
    """No schema allows JSON null, except a value inside a client's open request bag.

    The service never sends null; a newer client may put one inside a provider it owns,
    and that must still parse (the bag is orientation, kept raw or ignored).
    """
    offenders = [location for location, key, _ in _walk_keys(spec) if key == "nullable"]
    assert offenders == ["#/components/schemas/JsonValue/anyOf/0"]
    responses = yaml.safe_dump(
        [op["responses"] for _m, _p, op in iter_operations(spec)]
        + [spec["components"]["responses"]]
    )
    assert "JsonValue" not in responses


def test_run_context_schema_shape(spec: dict[str, Any]) -> None:
    """RunContext and RunContextMessage follow run_context.v1 (decisions.md S0-10, R10 and R11)."""
    schemas = spec["components"]["schemas"]
    run_context = schemas["RunContext"]
    assert set(run_context["required"]) == {
        "run_id",
        "context_floor_seq",
        "trigger_message",
        "thread_context",
    }
    assert set(run_context["properties"]) == {
        "run_id",
        "context_floor_seq",
        "trigger_message",
        "thread_context",
        "channel_context",
        "truncated_before_seq",
    }
    element = schemas["RunContextMessage"]
    optional = {"reply_to_message_id", "truncated", "already_delivered"}
    assert set(element["properties"]) - set(element["required"]) == optional
    assert "channel_id" in element["required"]
    assert element["properties"]["channel_id"]["description"] == (
        "Channel of the message (SEC-AI-1)."
    )
    for flag in ("truncated", "already_delivered"):
        assert element["properties"][flag]["enum"] == [True]
    assert set(schemas["PrincipalRef"]["properties"]) == {"id", "kind", "handle", "display_name"}
