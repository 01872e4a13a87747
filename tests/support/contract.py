"""The contract's operations as data, and minimal valid requests built from it.

Tests that must cover every operation (every id parameter, every body, every path)
read them from ``openapi/openapi.yaml`` here instead of listing them by hand, so an
operation added later is covered on its own:

* :func:`operations`: each operation with its method, path template, rate-limit class,
  parameters and request body schema;
* :func:`sample`: a small value that the schema accepts (required members only, the
  first branch of a union, a string that fits the pattern and format);
* :func:`id_locations`: where a schema holds ``format: uuid`` values, unions included.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.http.routes import load_spec

__all__ = [
    "TOKENS",
    "Operation",
    "id_locations",
    "operations",
    "path_for",
    "resolve",
    "sample",
]

# The demo world's token per rate-limit class; every other class is the owner's.
TOKENS = {"agent_runtime": "tok-lotse", "runner": "tok-runner-1", "session_context": "tok-alex"}
_OWNER = "tok-robin"
_METHODS = ("get", "put", "post", "delete", "patch")
# Strings tried, in order, for a pattern.
_CANDIDATES = ("a", "a.b", "a1", "home", "x:1", "1", '"1"', "no-store")


@dataclass(frozen=True)
class Operation:
    """One operation of the contract."""

    operation_id: str
    method: str
    path: str
    rate_class: str
    parameters: tuple[dict[str, Any], ...]
    body: dict[str, Any] | None

    @property
    def token(self) -> str:
        """The demo world's bearer token that this operation authenticates."""
        return TOKENS.get(self.rate_class, _OWNER)

    def parameters_in(self, location: str) -> list[dict[str, Any]]:
        """The resolved parameters in ``location`` (path, query, header)."""
        return [param for param in self.parameters if param["in"] == location]


def resolve(node: Any, spec: Mapping[str, Any] | None = None) -> Any:
    """``node`` with a top-level local ``$ref`` followed (repeatedly)."""
    spec = spec if spec is not None else load_spec()
    while isinstance(node, Mapping) and "$ref" in node:
        target: Any = spec
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def operations(spec: Mapping[str, Any] | None = None) -> list[Operation]:
    """Every operation of the spec, in document order."""
    spec = spec if spec is not None else load_spec()
    found: list[Operation] = []
    for path, item in spec["paths"].items():
        shared = [resolve(p, spec) for p in item.get("parameters", [])]
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            own = [resolve(p, spec) for p in operation.get("parameters", [])]
            body = None
            if "requestBody" in operation:
                media = operation["requestBody"]["content"]["application/json"]
                body = media["schema"]
            found.append(
                Operation(
                    operation_id=operation["operationId"],
                    method=method.upper(),
                    path=path,
                    rate_class=operation["x-rate-limit-class"],
                    parameters=tuple(shared + own),
                    body=body,
                )
            )
    return found


def _string(schema: Mapping[str, Any]) -> str:
    fmt = schema.get("format")
    if fmt == "uuid":
        return str(uuid.uuid4())
    if fmt == "date-time":
        return "2030-01-01T00:00:00Z"
    if "enum" in schema:
        return str(schema["enum"][0])
    pattern = schema.get("pattern")
    low = max(1, int(schema.get("minLength", 1)))
    for candidate in _CANDIDATES:
        value = candidate if len(candidate) >= low else candidate * low
        if pattern is None or re.search(pattern.replace("$", r"\Z"), value):
            return value
    raise ValueError(f"no sample string for pattern {pattern!r}")


def sample(schema: Any, spec: Mapping[str, Any] | None = None) -> Any:
    """A small value ``schema`` accepts: required members, first union branch."""
    spec = spec if spec is not None else load_spec()
    schema = resolve(schema, spec)
    if "enum" in schema:
        return schema["enum"][0]
    if "allOf" in schema:
        return sample(schema["allOf"][0], spec)
    kind = schema.get("type")
    union = schema.get("oneOf") or schema.get("anyOf")
    if union and kind != "object":
        return sample(union[0], spec)
    if kind == "object" or "properties" in schema:
        properties = dict(schema.get("properties", {}))
        if union:
            # An object with branches (AgentToolIntent): the first branch narrows members.
            properties.update(resolve(union[0], spec).get("properties", {}))
        required = list(schema.get("required", []))
        names = required or list(properties)[: int(schema.get("minProperties", 0))]
        return {name: sample(properties[name], spec) for name in names}
    if kind == "array":
        return [sample(schema["items"], spec) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return 1
    if kind == "boolean":
        return True
    return _string(schema)


def path_for(operation: Operation, values: Mapping[str, str] | None = None) -> str:
    """The operation's path with every parameter filled (``values`` first, else a sample)."""
    path = operation.path
    for param in operation.parameters_in("path"):
        value = (values or {}).get(param["name"]) or str(sample(param["schema"]))
        path = path.replace("{" + param["name"] + "}", value)
    return path


def id_locations(
    schema: Any, spec: Mapping[str, Any] | None = None, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], bool]]:
    """Every location of a ``format: uuid`` value in ``schema``: (path, under a union).

    Array items are ``*`` in the path; recursive schemas end where they repeat.
    """
    spec = spec if spec is not None else load_spec()
    yield from _ids(schema, spec, prefix, False, frozenset())


def _ids(
    schema: Any,
    spec: Mapping[str, Any],
    prefix: tuple[str, ...],
    in_union: bool,
    seen: frozenset[int],
) -> Iterator[tuple[tuple[str, ...], bool]]:
    schema = resolve(schema, spec)
    if not isinstance(schema, Mapping) or id(schema) in seen:
        return
    seen = seen | {id(schema)}
    if schema.get("format") == "uuid":
        yield prefix, in_union
    for part in schema.get("allOf", []):
        yield from _ids(part, spec, prefix, in_union, seen)
    for keyword in ("anyOf", "oneOf"):
        for branch in schema.get(keyword, []):
            yield from _ids(branch, spec, prefix, True, seen)
    for name, member in schema.get("properties", {}).items():
        yield from _ids(member, spec, (*prefix, name), in_union, seen)
    if isinstance(schema.get("items"), Mapping):
        yield from _ids(schema["items"], spec, (*prefix, "*"), in_union, seen)
    if isinstance(schema.get("additionalProperties"), Mapping):
        yield from _ids(schema["additionalProperties"], spec, (*prefix, "*"), in_union, seen)
