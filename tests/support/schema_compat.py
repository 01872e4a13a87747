"""Backward compatibility of OpenAPI schemas against a committed snapshot.

Old clients must keep working: a request an old client sends must still be accepted,
and an answer must still parse where it did. So a schema may only change additively.
:func:`breaking_changes` compares an old (snapshot) schema with the current one and
lists every change that is not additive:

* a property removed, or a property newly required;
* an enum narrowed (a value removed, or an enum added where there was none);
* a type changed, or added where there was none;
* an open object closed (``additionalProperties`` true or a schema becoming false);
* a bound tightened (``maxLength``, ``maxItems``, ``maxProperties``, ``maximum``
  lowered or added; ``minLength``, ``minItems``, ``minProperties``, ``minimum``
  raised or added), ``uniqueItems`` or an exclusive bound switched on;
* a ``pattern``, ``format`` or ``multipleOf`` changed or added, a ``not`` changed;
* an ``anyOf``/``oneOf`` branch removed, or an ``allOf`` part added.

Added optional properties, new ``anyOf`` branches, removed bounds and widened enums
pass. Descriptions, examples and ``x-`` extensions are not part of a snapshot.

The snapshot (``tests/contract/snapshots/api_schemas.json``) holds the fully
dereferenced schemas named in :data:`SNAPSHOT_SCHEMAS`. After a deliberate,
reviewed change rewrite it with ``.venv/bin/python -m tests.support.schema_compat
--write``; an additive change needs no rewrite.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.http.routes import load_spec
from tests.support.services import REPO_ROOT

__all__ = [
    "SNAPSHOT_PATH",
    "SNAPSHOT_SCHEMAS",
    "breaking_changes",
    "current_schemas",
    "dereference",
]

SNAPSHOT_PATH = REPO_ROOT / "tests" / "contract" / "snapshots" / "api_schemas.json"

# The request and response of resolveSessionContext, and run_context.v1.
SNAPSHOT_SCHEMAS = (
    "SessionResolveRequest",
    "SessionResolveResponse",
    "RunContext",
    "RunContextMessage",
)

# The keywords that decide what a schema accepts; everything else is documentation.
_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "enum",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "pattern",
        "format",
        "multipleOf",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "nullable",
    }
)
_UPPER = ("maxLength", "maxItems", "maxProperties", "maximum")
_LOWER = ("minLength", "minItems", "minProperties", "minimum")
_EXACT = ("pattern", "format", "multipleOf")


def dereference(spec: dict[str, Any], node: Any, _expanding: tuple[str, ...] = ()) -> Any:
    """``node`` with every local ``$ref`` inlined and only validation keywords kept.

    A recursive schema (``JsonValue`` refers to itself) is inlined once; the inner
    reference stays a ``{"$ref": ...}`` so that the result is finite and comparable.
    """
    if isinstance(node, list):
        return [dereference(spec, item, _expanding) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = str(node["$ref"])
        if ref in _expanding:
            return {"$ref": ref}
        target: Any = spec
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        return dereference(spec, target, (*_expanding, ref))
    kept: dict[str, Any] = {}
    for key, value in node.items():
        if key not in _KEYWORDS:
            continue
        if key == "properties":
            kept[key] = {name: dereference(spec, sub, _expanding) for name, sub in value.items()}
        else:
            kept[key] = dereference(spec, value, _expanding)
    return kept


def current_schemas(spec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The snapshot schemas as ``spec`` (the current spec by default) defines them, dereferenced.

    Reads ``spec`` only: the default is :func:`app.http.routes.load_spec`'s cached copy.
    """
    document = spec if spec is not None else load_spec()
    schemas = document["components"]["schemas"]
    return {name: dereference(document, schemas[name]) for name in SNAPSHOT_SCHEMAS}


def _open_values(schema: dict[str, Any]) -> Any:
    # OpenAPI's default: an object without additionalProperties accepts any field.
    return schema.get("additionalProperties", True)


def _bounds(old: dict[str, Any], new: dict[str, Any], path: str) -> list[str]:
    found: list[str] = []
    for key in _UPPER:
        if key in new and (key not in old or new[key] < old[key]):
            found.append(f"{path}: {key} tightened")
    for key in _LOWER:
        if key in new and (key not in old or new[key] > old[key]):
            found.append(f"{path}: {key} tightened")
    for key in _EXACT:
        if key in new and new.get(key) != old.get(key):
            found.append(f"{path}: {key} changed")
    for key in ("uniqueItems", "exclusiveMinimum", "exclusiveMaximum"):
        if new.get(key) is True and old.get(key) is not True:
            found.append(f"{path}: {key} switched on")
    return found


def _objects(old: dict[str, Any], new: dict[str, Any], path: str) -> list[str]:
    found: list[str] = []
    old_props, new_props = old.get("properties", {}), new.get("properties", {})
    for name, sub in old_props.items():
        if name not in new_props:
            found.append(f"{path}/{name}: property removed")
        else:
            found.extend(breaking_changes(sub, new_props[name], f"{path}/{name}"))
    for name in sorted(set(new.get("required", ())) - set(old.get("required", ()))):
        found.append(f"{path}/{name}: newly required")
    old_open, new_open = _open_values(old), _open_values(new)
    if old_open is not False and new_open is False:
        found.append(f"{path}: closed to unknown fields")
    elif old_open is True and isinstance(new_open, dict):
        found.append(f"{path}: unknown fields narrowed to a schema")
    elif isinstance(old_open, dict) and isinstance(new_open, dict):
        found.extend(breaking_changes(old_open, new_open, f"{path}/*"))
    return found


def _branches(old: dict[str, Any], new: dict[str, Any], path: str) -> list[str]:
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        if key not in new:
            continue
        if key not in old:
            found.append(f"{path}: {key} added")
            continue
        if len(new[key]) < len(old[key]):
            found.append(f"{path}: {key} branch removed")
        for index, (was, now) in enumerate(zip(old[key], new[key], strict=False)):
            found.extend(breaking_changes(was, now, f"{path}/{key}/{index}"))
    if "allOf" in new:
        old_parts = old.get("allOf", [])
        if len(new["allOf"]) > len(old_parts):
            found.append(f"{path}: allOf part added")
        for index, (was, now) in enumerate(zip(old_parts, new["allOf"], strict=False)):
            found.extend(breaking_changes(was, now, f"{path}/allOf/{index}"))
    if new.get("not") != old.get("not") and "not" in new:
        found.append(f"{path}: not changed")
    return found


def breaking_changes(old: Any, new: Any, path: str = "#") -> list[str]:
    """Every change from ``old`` to ``new`` that an old client could notice.

    Both are dereferenced schemas (:func:`dereference`); the answer is empty when the
    change is additive.
    """
    if old == new or not isinstance(old, dict) or not isinstance(new, dict):
        return [] if old == new else [f"{path}: schema replaced"]
    found: list[str] = []
    if "type" in new and new.get("type") != old.get("type"):
        found.append(f"{path}: type changed")
    if "enum" in new:
        if "enum" not in old:
            found.append(f"{path}: enum added")
        elif set(old["enum"]) - set(new["enum"]):
            found.append(f"{path}: enum narrowed")
    if old.get("nullable") is True and new.get("nullable") is not True:
        found.append(f"{path}: null no longer accepted")
    found.extend(_bounds(old, new, path))
    found.extend(_objects(old, new, path))
    if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
        found.extend(breaking_changes(old["items"], new["items"], f"{path}/items"))
    elif "items" in new and "items" not in old:
        found.append(f"{path}: items constrained")
    found.extend(_branches(old, new, path))
    return found


def _write() -> None:
    text = json.dumps(current_schemas(), indent=2, sort_keys=True) + "\n"
    SNAPSHOT_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT_PATH.relative_to(REPO_ROOT)}")


def main(argv: list[str] | None = None) -> int:
    """``--write`` rewrites the snapshot; without it, prints the breaking changes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="rewrite the snapshot")
    args = parser.parse_args(argv)
    if args.write:
        _write()
        return 0
    snapshot = json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8"))
    current = current_schemas()
    found = [
        change
        for name in SNAPSHOT_SCHEMAS
        for change in breaking_changes(snapshot[name], current[name], name)
    ]
    print("\n".join(found) if found else "no breaking change")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
