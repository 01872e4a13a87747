"""The session-context use case with in-memory fakes: what reaches the policy, what
comes back, and what a denial does (no audit: the use case has no audit sink at all).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from app.domain.facts import FactBundle
from app.errors import Forbidden, ValidationFailed
from app.policy import PolicyGateway
from app.usecases.session_context import ResolveSessionContext, parse_request, policy_input
from repositories.facts import FactsRepository
from repositories.principals import Actor
from repositories.unit_of_work import UnitOfWork
from tests.unit.fakes import FakeTransport

ALEX = Actor(id="alex", kind="user", status="active", is_owner=False)
CANARY = "canary-client-bag-5e1f"


def _facts(actor: str = "alex") -> FactBundle:
    return {
        "now": "2026-11-29T12:00:00Z",
        "principals": {
            actor: {
                "kind": "user",
                "status": "active",
                "is_owner": False,
                "groups": [],
                "permissions": ["matters:read"],
            }
        },
        "channels": {},
        "spaces": {},
        "grants": [],
    }


class FakeFacts(FactsRepository):
    def __init__(self) -> None:
        self.asked: list[tuple[list[str], list[str]]] = []

    def bundle(self, principal_ids: Iterable[str], channel_ids: Iterable[str]) -> FactBundle:
        principals = list(principal_ids)
        self.asked.append((principals, list(channel_ids)))
        return _facts(principals[0])


class FakeUnit(UnitOfWork):
    facts: FakeFacts

    def __init__(self) -> None:
        self.facts = FakeFacts()

    def _open(self) -> None:
        """Nothing to open: the facts are in memory."""

    def _close(self) -> None:
        """Nothing to close."""


def _body() -> dict[str, Any]:
    return {
        "context": {
            "version": 1,
            "providers": {
                "surface": {
                    "available_surfaces": [
                        {"surface_key": "home", "title": f"Home {CANARY}"},
                        {"surface_key": "settings.team", "required_permission": "matters:read"},
                        {"surface_key": "home"},
                        {"surface_key": "matters.list"},
                    ]
                },
                "permissions": {"granted": ["settings:write", CANARY]},
                "cpc": {"title": CANARY},
                CANARY: {"secret": CANARY},
            },
        },
        "intents": [
            {
                "name": "navigate_to",
                "plane": "client",
                "params": {
                    "surface_key": "matters.list",
                    "params": {"q": "canary-client-bag-5e1f"},
                },
            },
            {"name": "query_matters", "plane": "server", "params": {"query": CANARY}},
            {"name": "settings_delete_member", "plane": "server", "params": {"member": CANARY}},
        ],
    }


ALLOWED_ANSWER = {
    "decision": {"allow": True, "reason": "allowed", "status": 200},
    "permissions": ["matters:read"],
    "reachable": [
        {"surface_key": "home"},
        {"surface_key": "matters.list", "required_permission": "matters:read"},
    ],
    "intents": [
        {"decision": "accepted"},
        {"decision": "accepted"},
        {"decision": "denied", "reason": "unknown_tool"},
    ],
}


def _use_case(answer: Any) -> tuple[ResolveSessionContext, FakeTransport, list[FakeUnit]]:
    transport = FakeTransport(default=answer, copy_inputs=True)
    units: list[FakeUnit] = []

    def reader() -> FakeUnit:
        units.append(FakeUnit())
        return units[-1]

    return ResolveSessionContext(reader=reader, policy=PolicyGateway(transport)), transport, units


def test_the_policy_sees_keys_names_planes_and_targets_only() -> None:
    use_case, transport, units = _use_case(ALLOWED_ANSWER)

    use_case(ALEX, "session_context.resolve", _body())

    [(path, sent)] = transport.asked
    assert path == "sessioncontext/resolve"
    assert sent == {
        "action": "session_context.resolve",
        "actor": "alex",
        "resource": {"kind": "instance"},
        "facts": _facts(),
        # distinct, in the client's order; the client's required_permission is dropped
        "surfaces": ["home", "settings.team", "matters.list"],
        "intents": [
            {"name": "navigate_to", "plane": "client", "target": "matters.list"},
            {"name": "query_matters", "plane": "server"},
            {"name": "settings_delete_member", "plane": "server"},
        ],
    }
    # The client's permissions provider, titles, params and unknown providers stay out.
    assert CANARY not in json.dumps(sent)
    assert "settings:write" not in json.dumps(sent)
    # One fact bundle for the caller alone.
    assert [unit.facts.asked for unit in units] == [[(["alex"], [])]]


def test_the_answer_follows_the_policy_in_the_order_of_the_intents() -> None:
    use_case, _, _ = _use_case(ALLOWED_ANSWER)

    body = use_case(ALEX, "session_context.resolve", _body())

    assert body == {
        "permissions": ["matters:read"],
        "reachable_surfaces": [
            {"surface_key": "home"},
            {"surface_key": "matters.list", "required_permission": "matters:read"},
        ],
        "decisions": [
            {"name": "navigate_to", "plane": "client", "decision": "accepted"},
            {"name": "query_matters", "plane": "server", "decision": "accepted"},
            {
                "name": "settings_delete_member",
                "plane": "server",
                "decision": "denied",
                "reason": "unknown_tool",
            },
        ],
    }


@pytest.mark.parametrize("reason", ["subject_kind_not_allowed", "inactive"])
def test_a_denied_caller_is_forbidden_with_the_policys_reason(reason: str) -> None:
    use_case, transport, _ = _use_case(
        {"decision": {"allow": False, "reason": reason, "status": 403}}
    )

    with pytest.raises(Forbidden) as raised:
        use_case(ALEX, "session_context.resolve", _body())

    assert raised.value.reason == reason
    assert transport.calls == 1


def test_a_body_that_breaks_the_contract_is_422_by_path_without_values() -> None:
    body = _body()
    body["intents"][0]["params"]["surface_key"] = f"https://{CANARY}.example.com"
    body["context"]["providers"]["surface"]["available_surfaces"][1]["surface_key"] = "a/b"
    use_case, transport, units = _use_case(ALLOWED_ANSWER)

    with pytest.raises(ValidationFailed) as raised:
        use_case(ALEX, "session_context.resolve", body)

    assert raised.value.errors == [
        {
            "path": "body/context/providers/surface/available_surfaces/1/surface_key",
            "message": "violates 'surface_key'",
        },
        {"path": "body/intents/0/params/surface_key", "message": "violates 'surface_key'"},
    ]
    assert CANARY not in json.dumps(raised.value.errors)
    # Nothing was read and nothing was asked.
    assert (transport.calls, units) == (0, [])


def test_an_unknown_envelope_field_is_422() -> None:
    with pytest.raises(ValidationFailed) as raised:
        parse_request({**_body(), "debug": True})
    assert raised.value.errors == [{"path": "body/debug", "message": "violates 'extra_forbidden'"}]


def test_without_a_surface_provider_nothing_is_listed() -> None:
    request = parse_request({"context": {"version": 1, "providers": {}}, "intents": []})

    sent = policy_input("session_context.resolve", "alex", _facts(), request)

    assert (sent["surfaces"], sent["intents"]) == ([], [])
