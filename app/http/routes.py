"""Route metadata read from ``openapi/openapi.yaml``: the action and rate-limit class.

The spec is the single source: each operation names the action it is decided as
(``x-action``) and its rate-limit class (``x-rate-limit-class``). Handlers look their
operation up here, so a route cannot be served without both.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SPEC_PATH", "Route", "load_routes", "load_spec"]

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
_METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True, slots=True)
class Route:
    """One operation of the contract."""

    operation_id: str
    method: str
    path: str
    action: str
    rate_class: str


@functools.lru_cache(maxsize=4)
def load_spec(path: Path = SPEC_PATH) -> dict[str, Any]:
    """The parsed OpenAPI document, parsed once per process (treat it as read-only).

    libyaml's C loader when PyYAML has it: the pure-Python one takes most of a second
    for this document.
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
    if not isinstance(spec, dict):
        raise ValueError(f"{path} is not an OpenAPI document")
    return spec


def load_routes(spec: Mapping[str, Any]) -> dict[str, Route]:
    """Every operation by operationId.

    Raises:
        ValueError: an operation lacks ``operationId``, ``x-action`` or
            ``x-rate-limit-class``: the service refuses to start rather than serve it.
    """
    routes: dict[str, Route] = {}
    for path, item in spec.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            missing = [
                k for k in ("operationId", "x-action", "x-rate-limit-class") if k not in operation
            ]
            if missing:
                raise ValueError(f"{method.upper()} {path} lacks {', '.join(missing)}")
            routes[operation["operationId"]] = Route(
                operation_id=operation["operationId"],
                method=method.upper(),
                path=path,
                action=operation["x-action"],
                rate_class=operation["x-rate-limit-class"],
            )
    return routes
