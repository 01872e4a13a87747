"""The additive-change gate of the schema snapshots: each rule on a small schema."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.schema_compat import breaking_changes, dereference

BASE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "maxLength": 128},
        "plane": {"type": "string", "enum": ["client", "server"]},
        "tags": {"type": "array", "maxItems": 10, "items": {"type": "string"}},
        "bag": {"type": "object", "additionalProperties": True},
    },
}


def _edit(**changes: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {**BASE, "properties": dict(BASE["properties"])}
    for key, value in changes.items():
        if key in schema["properties"]:
            schema["properties"][key] = value
        else:
            schema[key] = value
    return schema


def test_unchanged_is_not_breaking() -> None:
    assert breaking_changes(BASE, BASE) == []


@pytest.mark.parametrize(
    "new",
    [
        # an added optional property
        {**BASE, "properties": {**BASE["properties"], "title": {"type": "string"}}},
        _edit(plane={"type": "string", "enum": ["client", "server", "edge"]}),
        _edit(name={"type": "string"}),
        _edit(name={"type": "string", "maxLength": 256}),
        _edit(required=[]),
        _edit(tags={"type": "array", "items": {"type": "string"}}),
    ],
    ids=["added optional", "widened enum", "bound removed", "bound raised", "unrequired", "no max"],
)
def test_additive_changes_pass(new: dict[str, Any]) -> None:
    assert breaking_changes(BASE, new) == []


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (
            {**BASE, "properties": {k: v for k, v in BASE["properties"].items() if k != "plane"}},
            "#/plane: property removed",
        ),
        (_edit(required=["name", "plane"]), "#/plane: newly required"),
        (_edit(plane={"type": "string", "enum": ["client"]}), "#/plane: enum narrowed"),
        (_edit(name={"type": "integer", "maxLength": 128}), "#/name: type changed"),
        (_edit(name={"type": "string", "maxLength": 64}), "#/name: maxLength tightened"),
        (
            _edit(name={"type": "string", "maxLength": 128, "minLength": 2}),
            "#/name: minLength tightened",
        ),
        (
            _edit(name={"type": "string", "maxLength": 128, "pattern": "^a"}),
            "#/name: pattern changed",
        ),
        (
            _edit(bag={"type": "object", "additionalProperties": False}),
            "#/bag: closed to unknown fields",
        ),
        (
            _edit(bag={"type": "object", "additionalProperties": {"type": "string"}}),
            "#/bag: unknown fields narrowed to a schema",
        ),
        (
            _edit(tags={"type": "array", "maxItems": 10, "items": {"type": "integer"}}),
            "#/tags/items: type changed",
        ),
        (
            _edit(
                tags={
                    "type": "array",
                    "maxItems": 10,
                    "uniqueItems": True,
                    "items": {"type": "string"},
                }
            ),
            "#/tags: uniqueItems switched on",
        ),
    ],
)
def test_breaking_changes_are_named(new: dict[str, Any], expected: str) -> None:
    assert expected in breaking_changes(BASE, new)


def test_branches() -> None:
    old = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert breaking_changes(old, {"anyOf": [*old["anyOf"], {"type": "boolean"}]}) == []
    assert breaking_changes(old, {"anyOf": [{"type": "string"}]}) == ["#: anyOf branch removed"]
    assert breaking_changes({}, old) == ["#: anyOf added"]
    assert breaking_changes({"allOf": [{}]}, {"allOf": [{}, {"type": "string"}]}) == [
        "#: allOf part added"
    ]
    assert breaking_changes({"not": {"enum": ["a"]}}, {"not": {"enum": ["a", "b"]}}) == [
        "#: not changed"
    ]


def test_dereference_inlines_refs_and_drops_documentation() -> None:
    spec = {
        "components": {
            "schemas": {
                "Key": {"type": "string", "description": "doc", "x-note": 1, "pattern": "^a"},
                "Outer": {
                    "type": "object",
                    "description": "doc",
                    "properties": {"description": {"$ref": "#/components/schemas/Key"}},
                },
            }
        }
    }

    assert dereference(spec, {"$ref": "#/components/schemas/Outer"}) == {
        "type": "object",
        "properties": {"description": {"type": "string", "pattern": "^a"}},
    }
