"""Reading ``openapi/openapi.yaml`` for the contract tests, independently of the app.

The document is parsed here with PyYAML (not through ``app.http.routes``) so the
contract tests check the file itself: its operations and local ``$ref`` chains.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

__all__ = ["HTTP_METHODS", "SPEC_PATH", "Operation", "iter_operations", "load_spec", "resolve_ref"]

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

Operation = tuple[str, str, dict[str, Any]]


def load_spec() -> dict[str, Any]:
    """Read the spec from disk.

    Returns:
        The parsed document.
    """
    with SPEC_PATH.open(encoding="utf-8") as handle:
        loaded = yaml.safe_load(handle)
    assert isinstance(loaded, dict)
    return loaded


def iter_operations(spec: dict[str, Any]) -> Iterator[Operation]:
    """Yield every operation of the spec.

    Args:
        spec: The parsed document.

    Yields:
        ``(method, path, operation object)`` for each operation.
    """
    for path, item in spec["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield method, path, item[method]


def resolve_ref(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` chain.

    Args:
        spec: The parsed document.
        node: An object that may be a ``{"$ref": "#/..."}`` reference.

    Returns:
        The referenced object, or ``node`` itself when it is no reference.
    """
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are used: {ref}"
        target: Any = spec
        for part in ref[2:].split("/"):
            target = target[part]
        node = target
    return node
