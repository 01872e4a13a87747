"""The two OPA inputs of a context read follow docs/policy-input.md.

Read back from OPA's own decision log (message lists masked by policies/system/log):
``authz/decision`` with ``run.context.read`` and the batch ``runcontext/evaluate``, ids,
kinds and states only, no JSON null (an absent fact is left out, as the contract says
for ``run.triggered_by``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.client import assert_no_null
from tests.support.run_context_world import (
    GENERAL,
    RunContextWorld,
    add_main_messages,
    add_run,
    add_thread,
    base_world,
    msg,
)

pytestmark = pytest.mark.integration

Start = Callable[..., RunContextWorld]


def _world() -> dict[str, Any]:
    world = base_world()
    add_main_messages(
        world, GENERAL, msg("c1", "writer", "Main one."), msg("p1", "alex", "Export thread.")
    )
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[
            msg("e1", "sam", "Earlier."),
            msg("e2", "importer", "Sync note."),
            msg("trig", "alex", "@lotse please look."),
        ],
    )
    add_run(world, "r1", "t1", "trig")
    return world


def _decisions(opa_server: Any, path: str, run_id: str, count: int) -> list[dict[str, Any]]:
    """Decision-log entries of ``path`` about ``run_id`` (waits for ``count`` of them)."""
    deadline = time.monotonic() + 10
    while True:
        found = []
        for line in opa_server.read_log().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("msg") != "Decision Log" or entry.get("path") != path:
                continue
            policy_input = entry.get("input", {})
            about = policy_input.get("resource", policy_input.get("run", {})).get("id")
            if about == run_id:
                found.append(entry)
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_the_decision_input_names_the_run_with_ids_and_state_only(
    start_world: Start,
    opa_server: Any,
) -> None:
    rc = start_world(_world())
    rc.context("r1")

    (entry,) = _decisions(opa_server, "authz/decision", rc.id("r1"), 1)

    policy_input = entry["input"]
    assert set(policy_input) == {"action", "actor", "resource", "facts"}
    assert policy_input["action"] == "run.context.read"
    assert policy_input["actor"] == rc.id("lotse")
    assert policy_input["resource"] == {
        "kind": "run",
        "id": rc.id("r1"),
        "agent_id": rc.id("lotse"),
        "channel_id": rc.id(GENERAL),
        "state": "queued",
    }
    assert entry["result"] == {"allow": True, "reason": "allowed", "status": 200}


def test_the_batch_input_holds_positions_and_distinct_authors_and_no_message_ids(
    start_world: Start,
    opa_server: Any,
) -> None:
    rc = start_world(_world())
    rc.context("r1")

    (entry,) = _decisions(opa_server, "runcontext/evaluate", rc.id("r1"), 1)

    policy_input = entry["input"]
    assert_no_null(policy_input)
    assert "erased" not in entry
    assert set(policy_input) == {"actor", "run", "threads", "authors", "facts"}
    assert policy_input["actor"] == rc.id("lotse")
    assert policy_input["run"] == {
        "id": rc.id("r1"),
        "agent_id": rc.id("lotse"),
        "triggered_by": rc.id("alex"),
        "channel_id": rc.id(GENERAL),
        "thread_id": rc.id("t1"),
        "parent": {"thread_id": rc.id(f"{GENERAL}#main"), "seq": 2},
    }
    # Candidates by position, grouped by thread: the main thread before the parent
    # (c1), the thread before the trigger (e1, e2) and the trigger itself.
    assert policy_input["threads"] == [
        {"id": rc.id("t1"), "channel_id": rc.id(GENERAL), "seqs": [1, 2, 3]},
        {"id": rc.id(f"{GENERAL}#main"), "channel_id": rc.id(GENERAL), "seqs": [1]},
    ]
    # One entry per distinct (author, origin), however many messages each wrote.
    assert sorted((a["id"], a["origin"]) for a in policy_input["authors"]) == sorted(
        [
            (rc.id("alex"), "human"),
            (rc.id("writer"), "human"),
            (rc.id("sam"), "human"),
            (rc.id("importer"), "app"),
        ]
    )
    # The facts cover the actor and every author of the four candidates.
    assert set(policy_input["facts"]["principals"]) == {
        rc.id(h) for h in ("lotse", "alex", "writer", "sam", "importer")
    }
    assert set(policy_input["facts"]["channels"]) == {rc.id(GENERAL)}
    assert entry["result"]["trigger_holders"] == sorted([rc.id("alex"), rc.id("sam")])
    assert {part["thread_id"] for part in entry["result"]["readable"]} == {
        rc.id("t1"),
        rc.id(f"{GENERAL}#main"),
    }


def test_a_run_without_a_triggering_person_leaves_triggered_by_out_of_the_batch_input(
    start_world: Start,
    opa_server: Any,
) -> None:
    rc = start_world(_world())
    rc.create_run("r-anon", "t1", "trig", triggered_by=None)

    body = rc.context("r-anon")
    (entry,) = _decisions(opa_server, "runcontext/evaluate", rc.id("r-anon"), 1)

    # Without a triggering person nobody is trigger: alex holds trigger, so authorized.
    assert body["trigger_message"]["trust"] == "authorized"
    assert "triggered_by" not in entry["input"]["run"]
    assert entry["input"]["run"]["id"] == rc.id("r-anon")
    assert_no_null(entry["input"])
