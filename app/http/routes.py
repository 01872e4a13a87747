"""Route metadata read from ``openapi/openapi.yaml``: the action and rate-limit class.

The spec is the single source: each operation names the action it is decided as
(``x-action``) and its rate-limit class (``x-rate-limit-class``). Handlers look their
operation up here, so a route cannot be served without both.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SPEC_PATH", "MethodIndex", "Route", "load_routes", "load_spec"]

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
_METHODS = ("get", "put", "post", "delete", "patch")
_PARAMETER = re.compile(r"\{[^/{}]+\}")


@dataclass(frozen=True, slots=True)
class Route:
    """One operation of the contract."""

    operation_id: str
    method: str
    path: str
    action: str
    rate_class: str
    has_body: bool = False

    @property
    def for_runners(self) -> bool:
        """Whether only a runner's token authenticates the operation.

        The runner endpoints are exactly the operations of rate-limit class ``runner``.
        """
        return self.rate_class == "runner"


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
                has_body="requestBody" in operation,
            )
    return routes


class MethodIndex:
    """The declared methods of every path template, to answer 405 with ``Allow``.

    A request whose method the contract does not declare for its path gets 405
    ``method_not_allowed`` with the declared methods (HEAD included where GET is
    declared, since GET routes also answer HEAD); a path no template matches stays 404.
    """

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self._templates: list[tuple[re.Pattern[str], tuple[str, ...]]] = []
        for path, item in spec.get("paths", {}).items():
            methods = [m.upper() for m in _METHODS if m in item]
            if "GET" in methods:
                methods.append("HEAD")
            self._templates.append((re.compile(_template_regex(path)), tuple(sorted(methods))))

    def allowed(self, path: str) -> tuple[str, ...] | None:
        """The methods declared for ``path``, or ``None`` when no template matches it.

        A path with a line feed (``%0A``) matches none: Starlette's mount pattern
        (``.*``) cannot route it either, so it is an unknown path (404).
        """
        if "\n" in path:
            return None
        for pattern, methods in self._templates:
            if pattern.fullmatch(path):
                return methods
        return None


def _template_regex(path: str) -> str:
    parts: list[str] = []
    position = 0
    for match in _PARAMETER.finditer(path):
        parts.append(re.escape(path[position : match.start()]))
        parts.append("[^/]+")
        position = match.end()
    parts.append(re.escape(path[position:]))
    return "".join(parts)
