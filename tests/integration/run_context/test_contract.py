"""The response contract and the route metadata of getRunContext.

SchemaAndNoNull (decisions.md R11, ADR 0005) and RouteMetadata.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import requests
import yaml

from tests.support.client import assert_no_null
from tests.support.run_context_world import (
    GENERAL,
    OTHER,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_session,
    add_thread,
    all_elements,
    base_world,
    msg,
)
from tests.support.services import REPO_ROOT

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]

TOP_REQUIRED = {"run_id", "context_floor_seq", "trigger_message", "thread_context"}
ELEMENT_REQUIRED = {
    "message_id",
    "thread_seq",
    "created_at",
    "channel_id",
    "author",
    "role",
    "origin",
    "kind",
    "content_md",
    "attachments",
    "trust",
}
CONTEXT_PATH = "/api/v1/runs/{run_id}/context"


def _world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "First earlier message."),
            msg("trig-1", "alex", "@lotse first"),
            msg("a-1", "lotse", "Answer."),
            msg("e2", "writer", "Second earlier message."),
        ],
    )
    add_session(world, "s1", "t1", started=False)
    add_run(world, "r1", "t1", "trig-1", session="s1")
    return world


def _raw(rc: RunContextWorld, run: str) -> tuple[dict[str, Any], str]:
    response = rc.context_response(run)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = json.loads(response.content)
    assert_no_null(body)
    assert "null" not in response.text
    return body, response.text


def test_a_first_run_body_omits_every_optional_field_that_does_not_apply(
    start_world: Start,
) -> None:
    rc = start_world(_world())

    body, _ = _raw(rc, "r1")

    # Built but empty: the parent is the first main-thread message.
    assert set(body) == TOP_REQUIRED | {"channel_context"}
    assert body["channel_context"] == []
    for element in all_elements(body):
        assert set(element) == ELEMENT_REQUIRED, element["message_id"]
        assert set(element["author"]) == {"id", "kind", "handle", "display_name"}
    assert body["context_floor_seq"] == 0


def test_a_resumed_body_has_no_channel_context_key_and_only_true_flags(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    rc.set_run_state("r1", "running")
    rc.create_followup("fu", "r1", "e2", "delivered")
    rc.set_run_state("r1", "succeeded")
    rc.post("alex", "@lotse second", key="trig-2", parent="p1")
    rc.create_run("r2", "t1", "trig-2", session="s1")

    body, _ = _raw(rc, "r2")

    assert set(body) == TOP_REQUIRED
    assert rc.keys_of(body["thread_context"]) == ["e2"]
    (element,) = body["thread_context"]
    assert set(element) == ELEMENT_REQUIRED | {"already_delivered"}
    assert element["already_delivered"] is True


def test_truncated_and_truncated_before_seq_appear_only_when_something_is_cut_or_missing(
    start_world: Start,
) -> None:
    rc = start_world(_world(), **{"agent.context_message_max_bytes": 10})
    rc.patch_channel(GENERAL, history_backfill_limit=2)
    rc.post("alex", "@lotse late question", key="trig-late", parent="p1")  # seq 5
    rc.create_run("r-late", "t1", "trig-late")

    body, _ = _raw(rc, "r-late")

    assert set(body) == TOP_REQUIRED | {"channel_context", "truncated_before_seq"}
    assert body["truncated_before_seq"] == 3
    assert rc.keys_of(body["thread_context"]) == ["a-1", "e2"]
    answer, cut = body["thread_context"]
    assert set(answer) == ELEMENT_REQUIRED  # "Answer." is 7 bytes: not cut
    assert set(cut) == ELEMENT_REQUIRED | {"truncated"}
    assert cut["truncated"] is True
    assert cut["content_md"] == "Second ear"
    assert set(body["trigger_message"]) == ELEMENT_REQUIRED


def test_channel_context_is_absent_exactly_when_it_is_not_built(start_world: Start) -> None:
    rc = start_world(_world())
    assert "channel_context" in _raw(rc, "r1")[0]

    rc.move_thread("t1", OTHER)

    assert "channel_context" not in _raw(rc, "r1")[0]


def test_get_run_context_names_its_action_and_rate_limit_class_in_the_spec(
    start_world: Start,
) -> None:
    rc = start_world(_world())
    spec = yaml.safe_load((REPO_ROOT / "openapi" / "openapi.yaml").read_text(encoding="utf-8"))

    operation = spec["paths"][CONTEXT_PATH]["get"]

    assert operation["operationId"] == "getRunContext"
    assert operation["x-action"] == "run.context.read"
    assert operation["x-rate-limit-class"] == "agent_runtime"
    assert operation["x-openapi-router-controller"] == "app.handlers.runs"
    route = rc.service.app.services.routes["getRunContext"]
    assert (route.method, route.path, route.action, route.rate_class) == (
        "GET",
        CONTEXT_PATH,
        "run.context.read",
        "agent_runtime",
    )
    assert set(operation["responses"]) == {"200", "401", "403", "404", "422", "429", "503", "500"}


def test_the_policy_knows_run_context_read_and_every_action_of_the_spec(opa_server: Any) -> None:
    spec = yaml.safe_load((REPO_ROOT / "openapi" / "openapi.yaml").read_text(encoding="utf-8"))
    spec_actions = {
        operation["x-action"]
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "x-action" in operation
    }

    result = requests.get(f"{opa_server.url}/v1/data/authz/actions", timeout=10).json()

    actions = set(result["result"])
    assert "run.context.read" in actions
    assert spec_actions <= actions


def test_the_route_is_served_and_only_for_get(start_world: Start) -> None:
    rc = start_world(_world())
    path = f"/api/v1/runs/{rc.id('r1')}/context"

    assert rc.client("lotse").get(path).status_code == 200
    # POST is not an operation of the spec, so the response cannot be validated by it.
    response = rc.client("lotse").post(path, json={}, validate=False)

    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, HEAD"
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "method_not_allowed"
    assert response.json()["correlation_id"] == response.headers["X-Correlation-Id"]


def test_the_agent_runtime_rate_limit_class_limits_context_reads_only(
    start_world: Start,
) -> None:
    rc = start_world(_world(), **{"rate_limit.agent_runtime.per_minute": 2})
    texter = rc.client("texter")
    path = f"/api/v1/runs/{rc.id('r1')}/context"

    statuses = [texter.get(path).status_code for _ in range(3)]
    limited = texter.get(path)

    assert statuses == [403, 403, 429]
    assert limited.status_code == 429
    assert limited.json()["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) >= 1
    # Another class keeps its own bucket: texter may still list general (chat).
    assert texter.get(f"/api/v1/channels/{rc.id(GENERAL)}/messages").status_code == 200
    # And another principal keeps its own agent_runtime bucket.
    assert rc.context_response("r1").status_code == 200
