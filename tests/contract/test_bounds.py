"""Every array and open object of the contract is bounded, and the bounds agree with
the configuration, the world format, the privacy guard and the shared contracts
(issue 19); every id of a request body can be canonicalised."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_sdk.contracts import MAX_INTENTS
from agent_sdk.contracts._base import (
    MAX_CONTEXT_MEMBERS,
    MAX_ENTRY_MEMBERS,
    MAX_JSON_ITEMS,
    MAX_JSON_MEMBERS,
)
from app.config import SCHEMA
from app.domain.privacy import MAX_ATTEMPTS
from app.http.canonical_ids import id_plan
from app.http.routes import load_spec
from tests.support.contract import id_locations, operations, resolve
from world.schema import MAX_ATTACHMENTS, MAX_PERMISSIONS


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return load_spec()


def _schemas(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object below ``node`` (not following references)."""
    if isinstance(node, dict):
        if "type" in node or "properties" in node or "anyOf" in node:
            yield path, node
        for key, value in node.items():
            if key not in ("example", "examples"):
                yield from _schemas(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _schemas(value, f"{path}/{index}")


def _maximum(name: str) -> float:
    (key,) = [key for key in SCHEMA if key.name == name]
    assert key.maximum is not None, name
    return key.maximum


def _max_items(spec: dict[str, Any], schema: str, member: str) -> int:
    value: int = resolve(spec["components"]["schemas"][schema]["properties"][member])["maxItems"]
    return value


def test_every_array_has_max_items(spec: dict[str, Any]) -> None:
    unbounded = [
        path
        for path, schema in _schemas({"paths": spec["paths"], "components": spec["components"]}, "")
        if schema.get("type") == "array" and "maxItems" not in schema
    ]

    assert unbounded == []


def test_every_open_object_has_max_properties(spec: dict[str, Any]) -> None:
    unbounded = [
        path
        for path, schema in _schemas(spec["components"]["schemas"], "#/components/schemas")
        if isinstance(schema.get("additionalProperties"), dict)
        and "maxProperties" not in schema
        and not path.endswith("ExplainResponse/properties/input")
    ]

    assert unbounded == []


def test_bounds_tied_to_configuration_are_its_maxima(spec: dict[str, Any]) -> None:
    problem = spec["components"]["schemas"]["Problem"]["properties"]
    assert problem["errors"]["maxItems"] == _maximum("http.max_validation_errors")
    for part in ("thread_context", "channel_context"):
        assert _max_items(spec, "RunContext", part) == _maximum(
            "channel.history_backfill_limit_max"
        )
    assert _maximum("channel.history_backfill_limit_default") <= _maximum(
        "channel.history_backfill_limit_max"
    )


def test_answers_are_bounded_by_what_they_answer(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    limit = spec["components"]["parameters"]["LimitQuery"]["schema"]["maximum"]
    assert _max_items(spec, "MessagePage", "items") == limit
    assert _max_items(spec, "TriggerHoldersResponse", "holders") == _max_items(
        spec, "TriggerHoldersRequest", "principal_ids"
    )
    assert _max_items(spec, "SessionResolveResponse", "decisions") == _max_items(
        spec, "SessionResolveRequest", "intents"
    )
    assert _max_items(spec, "SessionResolveResponse", "reachable_surfaces") == _max_items(
        spec, "SurfaceProvider", "available_surfaces"
    )
    assert _max_items(spec, "SessionResolveResponse", "permissions") == MAX_PERMISSIONS
    for schema in ("Message", "RunContextMessage"):
        assert _max_items(spec, schema, "attachments") == MAX_ATTACHMENTS
    assert _max_items(spec, "RunPrivacy", "attempted_provider_ids") == MAX_ATTEMPTS
    assert _max_items(spec, "RunStepStored", "kept") == len(schemas["RunStepPart"]["enum"])


def test_the_shared_contracts_have_the_specs_bounds(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    branches = {branch.get("type"): branch for branch in schemas["JsonValue"]["anyOf"]}
    assert branches["array"]["maxItems"] == MAX_JSON_ITEMS
    assert branches["object"]["maxProperties"] == MAX_JSON_MEMBERS
    assert schemas["AgentSessionContext"]["maxProperties"] == MAX_CONTEXT_MEMBERS
    for name in ("SurfaceEntry", "ClientToolEntry"):
        assert schemas[name]["maxProperties"] == MAX_ENTRY_MEMBERS
    open_members = ["SurfaceProvider", "CurrentPageContext", "KnowledgeBaseProvider"]
    open_members += ["PermissionsProvider", "ClientToolsProvider", "ToolParams"]
    for name in open_members:
        assert schemas[name]["maxProperties"] == MAX_JSON_MEMBERS, name
    unknown = schemas["SessionProviders"]["additionalProperties"]
    assert unknown["maxProperties"] == MAX_JSON_MEMBERS
    assert _max_items(spec, "SessionResolveRequest", "intents") == MAX_INTENTS


def test_every_id_of_a_request_body_is_canonicalised(spec: dict[str, Any]) -> None:
    """Each ``format: uuid`` of a body lies outside unions, where the id plan reaches it."""
    for operation in operations(spec):
        if operation.body is None:
            continue
        schema = resolve(operation.body, spec)
        plan = id_plan(schema, spec)
        for path, in_union in id_locations(schema, spec):
            assert not in_union, (operation.operation_id, path)
            node = plan
            for part in path:
                assert node is not None, (operation.operation_id, path)
                node = node.items if part == "*" else node.properties.get(part)
            assert node is not None, (operation.operation_id, path)
            assert node.is_id, (operation.operation_id, path)
