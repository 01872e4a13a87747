"""Reducing a changed record to the facts that matter, against a toy policy pair."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policydiff.compare import Change, changes
from policydiff.minimise import _alternatives, reduce

ALLOWED = {"allow": True, "reason": "allowed", "status": 200}
NOT_FOUND = {"allow": False, "reason": "not_found", "status": 404}


def _base(input: Any) -> dict[str, Any]:
    """Allowed with a channel grant, or a space grant on a regular channel."""
    channel = input["facts"]["channels"].get("general", {})
    for grant in input["facts"]["grants"]:
        if grant["target"]["kind"] == "channel" or channel.get("kind") != "dm":
            return {"result": ALLOWED}
    return {"result": NOT_FOUND}


def _head(input: Any) -> dict[str, Any]:
    """The edit under review: space grants reach DMs too."""
    return {"result": ALLOWED if input["facts"]["grants"] else NOT_FOUND}


def _evaluate(
    entrypoint: str, inputs: Sequence[Any]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(_base(item), _head(item)) for item in inputs]


def _input() -> dict[str, Any]:
    return {
        "action": "message.list",
        "actor": "alex",
        "resource": {"kind": "channel", "id": "general"},
        "facts": {
            "now": "2026-12-01T12:00:00Z",
            "principals": {
                "alex": {
                    "kind": "user",
                    "status": "active",
                    "is_owner": False,
                    "groups": ["team"],
                    "permissions": [],
                },
                "sam": {
                    "kind": "user",
                    "status": "active",
                    "is_owner": False,
                    "groups": [],
                    "permissions": [],
                },
            },
            "channels": {
                "general": {
                    "kind": "dm",
                    "archived": False,
                    "space_id": "support",
                    "members": ["sam"],
                }
            },
            "spaces": {"support": {"archived": False}},
            "grants": [
                {
                    "subject": {"kind": "principal", "id": "alex"},
                    "target": {"kind": "space", "id": "support"},
                    "level": "read",
                    "expires_at": "2026-12-31T12:00:00Z",
                }
            ],
        },
    }


def test_the_example_keeps_only_what_the_change_needs() -> None:
    change = changes("authz/decision", _input(), _base(_input()), _head(_input()))[0]
    assert change == Change(
        "message.list", "deny_to_allow", True, "not_found (404) -> allowed (200)"
    )

    reduced = reduce("authz/decision", _input(), change, _evaluate)

    facts = reduced.input["facts"]
    # Entries of ids the input names (the actor, the grant's space) stay, so that a
    # fact deciding the change (the actor's status) can be said; the rest goes.
    assert facts["principals"] == {
        "alex": {
            "kind": "user",
            "status": "active",
            "is_owner": False,
            "groups": [],
            "permissions": [],
        }
    }
    assert facts["spaces"] == {"support": {"archived": False}}
    assert facts["channels"]["general"]["members"] == []
    assert facts["grants"] == [
        {
            "subject": {"kind": "principal", "id": "alex"},
            "target": {"kind": "space", "id": "support"},
            "level": "read",
        }
    ]
    assert (reduced.base, reduced.head) == ({"result": NOT_FOUND}, {"result": ALLOWED})


def test_the_facts_that_matter_are_those_whose_change_alone_flips_it() -> None:
    change = changes("authz/decision", _input(), _base(_input()), _head(_input()))[0]

    reduced = reduce("authz/decision", _input(), change, _evaluate)

    assert {(fact.path, fact.value) for fact in reduced.facts} == {
        ("facts.channels.general.kind", "dm"),
        ("facts.grants[0].target.kind", "space"),
    }


def test_an_origin_is_varied_over_origins_and_a_kind_over_kinds() -> None:
    # "agent" and "app" are both principal kinds and author origins.
    assert _alternatives(("authors", 0, "origin"), "agent") == ["human", "app", "import", "system"]
    assert _alternatives(("authors", 0, "origin"), "app") == ["human", "agent", "import", "system"]
    assert _alternatives(("facts", "principals", "lotse", "kind"), "agent") == ["user", "app"]


def _disabled_agent_input() -> dict[str, Any]:
    return {
        "actor": "lotse",
        "run": {"id": "run-1", "agent_id": "lotse", "channel_id": "general", "thread_id": "t"},
        "threads": [{"id": "t", "channel_id": "general", "seqs": [1, 2]}],
        "authors": [],
        "facts": {
            "now": "2026-12-01T12:00:00Z",
            "principals": {
                "lotse": {
                    "kind": "agent",
                    "status": "disabled",
                    "is_owner": False,
                    "groups": [],
                    "permissions": [],
                }
            },
            "channels": {},
            "spaces": {},
            "grants": [],
        },
    }


def _readable(input: Any, reads: bool) -> dict[str, Any]:
    agent = input["facts"]["principals"].get("lotse", {})
    active = agent.get("status") == "active" and input["actor"] == input["run"]["agent_id"]
    return {
        "result": {
            "readable": [
                {"thread_id": thread["id"], "seqs": thread["seqs"] if active or reads else []}
                for thread in input["threads"]
            ]
        }
    }


def test_the_decisive_fact_of_a_run_agent_is_said_not_hidden_by_removing_the_agent() -> None:
    def evaluate(
        entrypoint: str, inputs: Sequence[Any]
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        # The edit under review: a disabled run agent reads its thread.
        return [(_readable(item, False), _readable(item, True)) for item in inputs]

    input = _disabled_agent_input()
    base, head = evaluate("runcontext/evaluate", [input])[0]
    (change,) = changes("runcontext/evaluate", input, base, head)

    reduced = reduce("runcontext/evaluate", input, change, evaluate)

    assert "lotse" in reduced.input["facts"]["principals"]
    assert ("facts.principals.lotse.status", "disabled") in {
        (fact.path, fact.value) for fact in reduced.facts
    }
