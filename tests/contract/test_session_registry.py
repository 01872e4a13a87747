"""The server-owned surface and tool registry (``policies/sessioncontext/registry``).

Reviewers edit one data file; OPA loads it as ``data.sessioncontext.registry``. This
schema test (beside the Rego tests of the same rules) keeps it well formed: every
surface key is URL-free, every permission named is a known permission string, every
tool names its plane, and every tool the contracts type is registered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_sdk.contracts import NAVIGATE_TO, TYPED_TOOL_PARAMS, is_surface_key

REGISTRY = (
    Path(__file__).resolve().parents[2] / "policies" / "sessioncontext" / "registry" / "data.json"
)

PERMISSION = r"^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$"


def _schema(permissions: list[str]) -> dict[str, Any]:
    known = {"enum": permissions}
    description = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["permissions", "surfaces", "tools"],
        "properties": {
            "permissions": {
                "type": "object",
                "propertyNames": {"pattern": PERMISSION},
                "additionalProperties": description,
            },
            "surfaces": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["description"],
                    "properties": {"description": description, "required_permission": known},
                },
            },
            "tools": {
                "type": "object",
                "propertyNames": {"pattern": r"^[a-z][a-z0-9_]*$"},
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["description", "plane"],
                    "properties": {
                        "description": description,
                        "plane": {"enum": ["client", "server"]},
                        "required_permission": known,
                    },
                },
            },
        },
    }


@pytest.fixture(scope="module")
def registry() -> dict[str, Any]:
    """The registry data file as OPA loads it."""
    loaded: dict[str, Any] = json.loads(REGISTRY.read_text(encoding="utf-8"))
    return loaded


def test_registry_matches_its_schema(registry: dict[str, Any]) -> None:
    schema = _schema(sorted(registry.get("permissions", {})))
    errors = [
        f"{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in Draft202012Validator(schema).iter_errors(registry)
    ]
    assert errors == []


def test_every_surface_key_is_url_free(registry: dict[str, Any]) -> None:
    assert registry["surfaces"]
    assert [key for key in registry["surfaces"] if not is_surface_key(key)] == []


def test_every_typed_tool_is_registered_and_navigate_to_is_a_client_tool(
    registry: dict[str, Any],
) -> None:
    tools = registry["tools"]
    assert set(TYPED_TOOL_PARAMS) <= set(tools)
    assert tools[NAVIGATE_TO]["plane"] == "client"


def test_the_schema_rejects_what_reviewers_must_not_merge(registry: dict[str, Any]) -> None:
    """The checks bite: a URL key, an unknown permission, a tool without a plane."""
    validator = Draft202012Validator(_schema(sorted(registry["permissions"])))
    broken = json.loads(json.dumps(registry))
    broken["surfaces"]["team/settings"] = {"description": "x", "required_permission": "x:y"}
    broken["tools"]["wipe_team"] = {"description": "x", "required_permission": "settings:write"}
    broken["permissions"]["Admin"] = "x"

    messages = [error.message for error in validator.iter_errors(broken)]

    assert any("'x:y' is not one of" in message for message in messages)
    assert any("'plane' is a required property" in message for message in messages)
    assert any("'Admin' does not match" in message for message in messages)
    assert not is_surface_key("team/settings")
