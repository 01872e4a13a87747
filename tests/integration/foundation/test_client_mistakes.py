"""Client mistakes that used to get a 500 or a non-Problem answer (issue 19, part 2).

* a media type in upper or mixed case is JSON on every body operation;
* a key of a body with a lone surrogate or a NUL gets a 422 Problem, echoed escaped;
* a trailing slash is 404 Problem JSON like any unknown path, never a redirect whose
  ``Location`` comes from the ``Host`` header;
* an id is the same id in any case, in every position of the contract: path, query and
  body (checked over every uuid parameter and body field the spec declares, by
  recording what reaches the use cases), and end to end where it used to differ.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from app.errors import NotFound
from tests.integration.foundation.conftest import messages_path
from tests.support.contract import Operation, id_locations, operations, path_for, sample
from tests.support.raw_http import exchange

pytestmark = pytest.mark.integration

MEDIA_TYPES = ["APPLICATION/JSON", "Application/json", "application/JSON; Charset=UTF-8"]
_UUID_TEXT = len("00000000-0000-0000-0000-000000000000")


def _send(service: Any, operation: Operation, path: str, **kwargs: Any) -> requests.Response:
    headers = {"Authorization": f"Bearer {operation.token}", **kwargs.pop("headers", {})}
    return requests.request(
        operation.method, service.base_url + path, headers=headers, timeout=30, **kwargs
    )


def _headers(operation: Operation) -> dict[str, str]:
    return {p["name"]: str(sample(p["schema"])) for p in operation.parameters_in("header")}


# ------------------------------------------------------------------- media types


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_a_media_type_in_any_case_is_json_on_every_body_operation(
    make_service: Any, ids: dict[str, str], media_type: str
) -> None:
    service = make_service()
    statuses = {}
    for operation in operations():
        if operation.body is None:
            continue
        response = _send(
            service,
            operation,
            path_for(operation),
            headers={**_headers(operation), "Content-Type": media_type},
            data=json.dumps({"zz_unknown": 1}).encode(),
        )
        assert response.headers["content-type"] == "application/problem+json"
        statuses[operation.operation_id] = (response.status_code, response.json()["code"])

    # Read as JSON everywhere: the unknown member is a schema violation, not a 415 or 500.
    assert set(statuses.values()) == {(422, "validation_failed")}, statuses


def test_a_post_with_an_upper_case_media_type_is_stored(
    make_service: Any, ids: dict[str, str]
) -> None:
    response = (
        make_service()
        .client("tok-sam")
        .post(
            messages_path(ids["support/general"]),
            data=b'{"content_md": "Upper-case media type."}',
            headers={"Content-Type": "APPLICATION/JSON"},
        )
    )

    assert response.status_code == 201


# --------------------------------------------------------------------------- keys


RESOLVE = "/api/v1/agents/session-context/resolve"


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        pytest.param(
            b'{"context": {"version": 1, "providers": {}}, "intents": [], "x\\udc80": 1}',
            "body",
            "unknown field(s): x\\udc80",
            id="unknown-envelope-field",
        ),
        pytest.param(
            b'{"context": {"version": 1, "providers": {"x\\udc80": 5}}, "intents": []}',
            "body/context/providers/x\\udc80",
            "violates 'type'",
            id="provider-not-an-object",
        ),
        pytest.param(
            b'{"context": {"version": 1, "providers": {"x\\u0000": {}}}, "intents": []}',
            "body/context/providers/x\\u0000",
            "NUL or unpaired surrogate",
            id="nul-provider-key",
        ),
        pytest.param(
            b'{"context": {"version": 1, "providers": {"deadlines": {"\\ud800": 1}}}, '
            b'"intents": []}',
            "body/context/providers/deadlines/\\ud800",
            "NUL or unpaired surrogate",
            id="surrogate-member-key",
        ),
    ],
)
def test_a_key_with_a_surrogate_or_a_nul_is_a_422_problem(
    make_service: Any, ids: dict[str, str], raw: bytes, path: str, message: str
) -> None:
    response = (
        make_service()
        .client("tok-alex")
        .post(RESOLVE, data=raw, headers={"Content-Type": "application/json"})
    )

    assert response.status_code == 422
    assert response.json()["errors"] == [{"path": path, "message": message}]


def test_a_nul_in_a_key_gets_the_same_answer_as_in_a_value(
    make_service: Any, ids: dict[str, str]
) -> None:
    client = make_service().client("tok-alex")

    def resolve(bag: dict[str, Any]) -> dict[str, Any]:
        body = {"context": {"version": 1, "providers": {"deadlines": bag}}, "intents": []}
        response = client.post(RESOLVE, json=body)
        assert response.status_code == 422
        answer: dict[str, Any] = response.json()
        del answer["correlation_id"]
        return answer

    in_key, in_value = resolve({"a\x00": 1}), resolve({"a": "\x00"})

    assert in_key["errors"][0]["message"] == in_value["errors"][0]["message"]
    assert {k: v for k, v in in_key.items() if k != "errors"} == {
        k: v for k, v in in_value.items() if k != "errors"
    }


# --------------------------------------------------------------- trailing slash


def test_a_trailing_slash_is_404_problem_json_on_every_path(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    answers = {}
    for operation in operations():
        target = path_for(operation) + "/"
        head = (
            f"{operation.method} {target} HTTP/1.1\r\nHost: evil.example\r\n"
            f"Authorization: Bearer {operation.token}\r\nContent-Length: 0\r\n\r\n"
        ).encode("latin-1")
        response = exchange(service.base_url, head)
        body = response.json()
        assert "location" not in response.headers, target
        assert body["correlation_id"] == response.headers["x-correlation-id"]
        answers[target] = (response.status, response.headers["content-type"], body["code"])

    assert set(answers.values()) == {(404, "application/problem+json", "not_found")}, answers


# ---------------------------------------------------------------- upper-case ids


class _Recorder:
    """Stands in for the use cases: records every call's arguments, then answers 404."""

    def __init__(self, calls: list[Any]) -> None:
        self._calls = calls

    def __getattr__(self, name: str) -> _Recorder:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._calls.append((args, kwargs))
        raise NotFound()


def _strings(value: Any) -> Iterator[str]:
    """Every string in ``value``, closures of callables included (the admin work)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif callable(value) and getattr(value, "__closure__", None):
        for cell in value.__closure__:
            yield from _strings(cell.cell_contents)


def _set_id(body: Any, path: tuple[str, ...], value: Any) -> None:
    target = body
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _with_ids(operation: Operation) -> tuple[Any, list[str]]:
    """A valid body with every id of the contract set to a fresh upper-case uuid."""
    body = sample(operation.body)
    sent: list[str] = []
    for path, _in_union in id_locations(operation.body):
        value = str(uuid.uuid4()).upper()
        sent.append(value)
        if path[-1] == "*":  # an array of ids
            _set_id(body, path[:-1], [value])
        else:
            _set_id(body, path, value)
    return body, sent


def test_every_id_of_the_contract_reaches_the_use_cases_in_lower_case(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    calls: list[Any] = []
    service.app.services.use_cases = _Recorder(calls)
    checked = 0
    for operation in operations():
        sent: list[str] = []
        values = {}
        for param in operation.parameters_in("path"):
            if param["schema"].get("format") == "uuid":
                values[param["name"]] = str(uuid.uuid4()).upper()
                sent.append(values[param["name"]])
        query = {}
        for param in operation.parameters_in("query"):
            if param["schema"].get("format") == "uuid":
                query[param["name"]] = str(uuid.uuid4()).upper()
                sent.append(query[param["name"]])
        body = None
        if operation.body is not None:
            body, in_body = _with_ids(operation)
            sent += in_body
        if not sent:
            continue
        calls.clear()
        response = _send(
            service,
            operation,
            path_for(operation, values),
            params=query,
            json=body,
            headers=_headers(operation),
        )

        assert response.status_code == 404, (operation.operation_id, response.text[:300])
        received = [s for s in _strings(calls) if len(s) == _UUID_TEXT and s.count("-") == 4]
        assert {value.lower() for value in sent} <= set(received), operation.operation_id
        assert all(value == value.lower() for value in received), operation.operation_id
        checked += len(sent)

    # Path, query and body ids of the whole contract (a new one is covered on its own).
    assert checked >= 30


def test_an_upper_case_id_names_the_same_resource_end_to_end(
    make_service: Any, ids: dict[str, str]
) -> None:
    service = make_service()
    sam, robin = service.client("tok-sam"), service.client("tok-robin")
    general = ids["support/general"]
    lower_page = sam.get(messages_path(general))

    # A channel id in the path (404 before issue 19, even for its members).
    upper_page = sam.get(messages_path(general.upper()))
    # Ids in the body: a reply into the main thread, a post under a parent message.
    reply = sam.post(
        messages_path(general.upper()),
        json={"content_md": "Re", "reply_to_message_id": ids["m1"].upper()},
    )
    under = sam.post(
        messages_path(general),
        json={"content_md": "In the thread", "parent_message_id": ids["m1"].upper()},
    )
    # A query id, a list of ids, and a run id in the path.
    page = sam.get(messages_path(general), params={"parent_message_id": ids["m1"].upper()})
    holders = robin.post(
        "/api/v1/authz/trigger-holders",
        json={"channel_id": general.upper(), "principal_ids": [ids["sam"].upper()]},
    )
    context = service.client("tok-lotse").get(f"/api/v1/runs/{ids['r1'].upper()}/context")

    assert upper_page.status_code == lower_page.status_code == 200
    assert upper_page.json() == lower_page.json()
    assert reply.status_code == 201
    assert reply.json()["reply_to_message_id"] == ids["m1"]
    assert under.status_code == 201
    assert [m["content_md"] for m in page.json()["items"]][-1] == "In the thread"
    assert holders.json() == {"channel_id": general, "holders": [ids["sam"]]}
    assert context.status_code == 200
    assert context.json()["run_id"] == ids["r1"]
