"""The most expensive requests a client can send each operation under the body limit.

Issue 19: a request below ``http.max_body_bytes`` must not cost seconds and
gigabytes. For every operation with a body, :func:`hostile_requests` builds the
candidates a hostile client would try, each encoded just under the limit, from the
contract itself (so a new operation or array is covered on its own):

* ``unknown-keys``: the body's closed object with as many unknown members as fit,
  each name a long run of text with an unpaired surrogate and a NUL in it;
* ``nested``: one unknown member holding as many arrays as fit, nested as deep as
  ``http.max_json_depth`` allows (refused on the bytes by ``http.max_json_containers``);
* ``bracket-text``: strings full of brackets and escaped quotes (the container count
  must read past them);
* ``long:<field>``: each text field at the limit, ending in a NUL and a surrogate;
* ``flood:<array>``: each array of the body far beyond its ``maxItems``, with invalid
  items (numbers: a flood of objects is refused earlier, by ``http.max_json_containers``);
* ``at-bound:<array>``: each array at exactly its ``maxItems``, every item invalid and
  as large as the budget allows (the most violations validation can find);
* ``bag-numbers`` and ``bag-full`` (operations with an open bag): the bag's free JSON
  full of numbers the contract refuses, or full of valid members;
* ``valid-max`` (where the operation's work grows with a valid body): the largest
  valid request, e.g. 1,000 candidates of a trigger-holder query.

``listChannelMessages`` gets ``query-keys``, a query full of unknown parameters up to
the head limit. :func:`normal_request` is an ordinary request of the same service, the
yardstick of the benchmark (``tests/load/bounds.py``).
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tests.support.contract import Operation, operations, path_for, resolve, sample

__all__ = ["HostileRequest", "hostile_requests", "normal_request"]

# Left below the limit for the HTTP framing of the body.
_MARGIN = 256
# The head limit (http.max_header_bytes) minus room for the request line and headers.
_QUERY_BUDGET = 60_000
_HOSTILE_NAME = "\udc80\x00" + "k" * 60
# Free JSON for an open bag: rows of numbers beyond the contract's range (each one a
# violation inside a union), and a member of valid values only (all of it parsed).
_NUMBERS = [[1e30] * 200] * 200
_MEMBER = {f"m{index}": ["v" * 20] * 200 for index in range(60)}


@dataclass(frozen=True)
class HostileRequest:
    """One request: method, path with query, token, encoded JSON body (or none)."""

    operation_id: str
    name: str
    method: str
    path: str
    token: str
    body: bytes | None
    # The operation's own header parameters (If-Match), valid, so the body is read.
    parameters: tuple[tuple[str, str], ...] = ()

    @property
    def headers(self) -> dict[str, str]:
        """Authorization, the header parameters, and Content-Type for a body."""
        headers = {"Authorization": f"Bearer {self.token}", **dict(self.parameters)}
        if self.body is not None:
            headers["Content-Type"] = "application/json"
        return headers


def _encode(value: Any) -> bytes:
    # ensure_ascii writes surrogates and NUL as \u escapes, as a JSON client would.
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def _fill(build: Callable[[int], Any], budget: int) -> bytes:
    """The largest ``build(n)`` whose encoding fits ``budget`` bytes.

    ``build`` grows about linearly with ``n``: two small encodings give the step, one
    estimate and a few corrections give ``n`` (encoding a megabyte costs milliseconds).
    """
    one, two = len(_encode(build(1))), len(_encode(build(2)))
    count = max(1, (budget - one) // max(1, two - one) + 1)
    encoded = _encode(build(count))
    while len(encoded) > budget and count > 1:
        count = max(1, count - (len(encoded) - budget) // max(1, two - one) - 1)
        encoded = _encode(build(count))
    return encoded


def _set(value: dict[str, Any], path: tuple[str, ...], leaf: Any) -> dict[str, Any]:
    """A copy of ``value`` with ``leaf`` at ``path`` (missing objects created)."""
    if not path:
        return leaf  # type: ignore[no-any-return]
    copy = dict(value)
    inner = copy.get(path[0])
    copy[path[0]] = _set(inner if isinstance(inner, dict) else {}, path[1:], leaf)
    return copy


def _arrays(schema: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """The arrays reachable through named members: (path, array schema)."""
    schema = resolve(schema)
    if schema.get("type") == "array":
        yield prefix, schema
        return
    for name, member in schema.get("properties", {}).items():
        yield from _arrays(member, (*prefix, name))


def _bags(schema: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Objects whose undeclared members are free JSON (open bags): their paths."""
    schema = resolve(schema)
    if schema.get("x-open-bag") and isinstance(schema.get("additionalProperties"), Mapping):
        yield prefix
        return
    for name, member in schema.get("properties", {}).items():
        yield from _bags(member, (*prefix, name))


def _invalid_item(items: Any, size: int) -> Any:
    """An item the array's ``items`` refuses, growing with ``size``."""
    if resolve(items).get("type") == "string":
        return "x" * (size + 1)
    return {f"{index}{_HOSTILE_NAME}": 0 for index in range(size + 1)}


def _with_unknown(base: dict[str, Any], count: int) -> dict[str, Any]:
    return {**base, **{f"{index}{_HOSTILE_NAME}": 0 for index in range(count)}}


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# Within http.max_json_depth: the body, the member's array and this chain.
_CHAIN = _nested(29)


def _with_nesting(base: dict[str, Any], count: int) -> dict[str, Any]:
    # Containers as many and as deep as the parser lets through (each one walked).
    return {**base, f"zz{_HOSTILE_NAME}": [_CHAIN] * count}


def _with_bracket_text(base: dict[str, Any], count: int) -> dict[str, Any]:
    # Brackets inside strings, with escaped quotes: the container count must look
    # past every one of them.
    return {**base, f"zz{_HOSTILE_NAME}": ['["[{\\"'] * count}


def _with_text(base: dict[str, Any], name: str, length: int) -> dict[str, Any]:
    # Text at the limit, ending in what PostgreSQL cannot store.
    return {**base, name: "x" * length + "\x00\udc80"}


def _with_flood(base: dict[str, Any], path: tuple[str, ...], count: int) -> dict[str, Any]:
    # Scalars of the wrong type: no container to count, so the array reaches validation.
    return _set(base, path, [0] * count)


def _at_bound(
    base: dict[str, Any], path: tuple[str, ...], array: Mapping[str, Any], size: int
) -> dict[str, Any]:
    return _set(base, path, [_invalid_item(array["items"], size)] * int(array["maxItems"]))


def _in_bag(base: dict[str, Any], path: tuple[str, ...], chunk: Any, count: int) -> dict[str, Any]:
    return _set(base, path, {**_get(base, path), **_members(chunk, count)})


def _body_candidates(operation: Operation, budget: int) -> Iterator[tuple[str, bytes]]:
    assert operation.body is not None
    base = sample(operation.body)
    yield "unknown-keys", _fill(functools.partial(_with_unknown, base), budget)
    yield "nested", _fill(functools.partial(_with_nesting, base), budget)
    yield "bracket-text", _fill(functools.partial(_with_bracket_text, base), budget)
    for name, member in resolve(operation.body).get("properties", {}).items():
        if resolve(member).get("type") == "string" and "enum" not in resolve(member):
            yield f"long:{name}", _fill(functools.partial(_with_text, base, name), budget)
    for path, array in _arrays(operation.body):
        name = "/".join(path)
        yield f"flood:{name}", _fill(functools.partial(_with_flood, base, path), budget)
        yield f"at-bound:{name}", _fill(functools.partial(_at_bound, base, path, array), budget)
    for path in _bags(operation.body):
        for name, chunk in (("bag-numbers", _NUMBERS), ("bag-full", _MEMBER)):
            yield name, _fill(functools.partial(_in_bag, base, path, chunk), budget)


def _get(value: Any, path: tuple[str, ...]) -> dict[str, Any]:
    for name in path:
        value = value.get(name, {}) if isinstance(value, dict) else {}
    return value if isinstance(value, dict) else {}


def _members(chunk: Any, count: int) -> dict[str, Any]:
    """``count`` units of ``chunk`` (a list cut to size, or whole objects) as members."""
    if isinstance(chunk, list):
        whole, rest = divmod(count, len(chunk))
        members = {f"zz{index}": chunk for index in range(whole)}
        if rest:
            members[f"zz{whole}"] = chunk[:rest]
        return members
    return {f"zz{index}": chunk for index in range(count)}


def _valid_max(operation: Operation, ids: Mapping[str, str]) -> bytes | None:
    """The largest valid body where an operation's work grows with it."""
    if operation.operation_id == "queryTriggerHolders":
        principals = [str(uuid.uuid4()) for _ in range(1000)]
        return _encode({"channel_id": ids["support/general"], "principal_ids": principals})
    if operation.operation_id == "resolveSessionContext":
        surfaces = [{"surface_key": f"s{index}.{'k' * 100}"} for index in range(200)]
        intents = [
            {"name": "navigate_to", "plane": "client", "params": {"surface_key": f"s{index}"}}
            for index in range(32)
        ]
        context = {
            "version": 1,
            "providers": {
                "surface": {"available_surfaces": surfaces},
                "kb": {"document_ids": ["d" * 100] * 200, "collection_keys": ["c"] * 50},
                "permissions": {"granted": ["p:x"] * 200},
                "clientTools": {"tools": [{"name": "t" * 100}] * 100},
            },
        }
        return _encode({"context": context, "intents": intents})
    return None


def hostile_requests(
    ids: Mapping[str, str], max_body_bytes: int = 1_048_576
) -> dict[str, list[HostileRequest]]:
    """Every operation's candidates by operationId (operations with a body or a query)."""
    budget = max_body_bytes - _MARGIN
    values = {"channel_id": ids["support/general"], "run_id": ids["r1"], "agent_id": ids["lotse"]}
    found: dict[str, list[HostileRequest]] = {}
    for operation in operations():
        path = path_for(operation, values)
        parameters = tuple(
            (param["name"], str(sample(param["schema"])))
            for param in operation.parameters_in("header")
        )
        requests: list[HostileRequest] = []
        if operation.body is not None:
            for name, body in _body_candidates(operation, budget):
                assert len(body) <= budget, (operation.operation_id, name, len(body))
                requests.append(
                    HostileRequest(
                        operation.operation_id,
                        name,
                        operation.method,
                        path,
                        operation.token,
                        body,
                        parameters,
                    )
                )
            valid = _valid_max(operation, ids)
            if valid is not None:
                requests.append(
                    HostileRequest(
                        operation.operation_id,
                        "valid-max",
                        operation.method,
                        path,
                        operation.token,
                        valid,
                    )
                )
        elif operation.parameters_in("query"):
            pairs = ((f"p{i}{'q' * 40}", "v" * 20) for i in range(_QUERY_BUDGET // 70))
            query = urlencode(list(pairs))[:_QUERY_BUDGET].rsplit("&", 1)[0]
            requests.append(
                HostileRequest(
                    operation.operation_id,
                    "query-keys",
                    operation.method,
                    f"{path}?{query}",
                    operation.token,
                    None,
                )
            )
        if requests:
            found[operation.operation_id] = requests
    return found


def normal_request(ids: Mapping[str, str]) -> HostileRequest:
    """A normal request: the agent reads the context of the demo run ``r1``."""
    return HostileRequest(
        "getRunContext", "normal", "GET", f"/api/v1/runs/{ids['r1']}/context", "tok-lotse", None
    )
