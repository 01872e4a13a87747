"""The session-context entry point of the policy gateway: every answer is validated.

``parse_session_context`` reads ``data.sessioncontext.resolve`` against the request
sent; anything malformed raises ``OpaMalformed`` (an ``OpaUnavailable``), so the
request fails closed with 503 and never continues with a guessed answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.opa_client import OpaMalformed, OpaUnavailable
from app.policy import INTENT_REASONS, REASONS, PolicyGateway
from app.policy.gateway import ENTRYPOINTS, SESSION_CONTEXT
from app.policy.inputs import SessionContextInput
from app.policy.results import (
    IntentOutcome,
    IntentVerdict,
    ReachableSurface,
    parse_session_context,
)
from tests.unit.fakes import FakeTransport

ALLOWED = {"allow": True, "reason": "allowed", "status": 200}


def _request() -> SessionContextInput:
    return {
        "action": "session_context.resolve",
        "actor": "alex",
        "resource": {"kind": "instance"},
        "facts": {
            "now": "2026-11-29T12:00:00Z",
            "principals": {
                "alex": {
                    "kind": "user",
                    "status": "active",
                    "is_owner": False,
                    "groups": [],
                    "permissions": ["matters:read", "settings:read"],
                }
            },
            "channels": {},
            "spaces": {},
            "grants": [],
        },
        "surfaces": ["home", "matters.list", "settings.team"],
        "intents": [
            {"name": "navigate_to", "plane": "client", "target": "matters.list"},
            {"name": "forged_admin_tool", "plane": "server"},
        ],
    }


def _answer() -> dict[str, Any]:
    return {
        "decision": dict(ALLOWED),
        "permissions": ["matters:read", "settings:read"],
        "reachable": [
            {"surface_key": "home"},
            {"surface_key": "matters.list", "required_permission": "matters:read"},
        ],
        "intents": [
            {"decision": "accepted"},
            {"decision": "denied", "reason": "unknown_tool"},
        ],
    }


def test_a_well_formed_answer_is_read_in_order() -> None:
    verdict = parse_session_context(_answer(), _request())

    assert verdict.decision.allow
    assert verdict.permissions == ("matters:read", "settings:read")
    assert verdict.reachable == (
        ReachableSurface("home", None),
        ReachableSurface("matters.list", "matters:read"),
    )
    assert verdict.intents == (
        IntentVerdict(IntentOutcome.ACCEPTED, None),
        IntentVerdict(IntentOutcome.DENIED, "unknown_tool"),
    )


def test_a_denied_caller_gets_the_decision_only() -> None:
    denied = {"allow": False, "reason": "subject_kind_not_allowed", "status": 403}

    verdict = parse_session_context({"decision": denied}, _request())

    assert not verdict.decision.allow
    assert verdict.decision.reason == "subject_kind_not_allowed"
    assert (verdict.permissions, verdict.reachable, verdict.intents) == ((), (), ())


def _broken(change: Any) -> dict[str, Any]:
    answer = _answer()
    change(answer)
    return answer


MALFORMED = {
    "not an object": lambda a: a.clear(),
    "no decision": lambda a: a.pop("decision"),
    "decision with unknown reason": lambda a: a["decision"].update(reason="maybe"),
    "missing intents": lambda a: a.pop("intents"),
    "extra part": lambda a: a.update(audit=True),
    "fewer intents than sent": lambda a: a["intents"].pop(),
    "more intents than sent": lambda a: a["intents"].append({"decision": "accepted"}),
    "intent outcome unknown": lambda a: a["intents"][0].update(decision="maybe"),
    "accepted with a reason": lambda a: a["intents"][0].update(reason="unknown_tool"),
    "denied without a reason": lambda a: a["intents"][1].pop("reason"),
    "denied with an unknown reason": lambda a: a["intents"][1].update(reason="because"),
    "intent not an object": lambda a: a["intents"].__setitem__(0, "accepted"),
    "permission not held": lambda a: a["permissions"].append("settings:write"),
    "permissions not ascending": lambda a: a["permissions"].reverse(),
    "permissions duplicated": lambda a: a["permissions"].append("settings:read"),
    "permissions not strings": lambda a: a.update(permissions=[1]),
    "reachable not sent": lambda a: a["reachable"].append({"surface_key": "admin.panel"}),
    "reachable out of order": lambda a: a["reachable"].reverse(),
    "reachable twice": lambda a: a["reachable"].append({"surface_key": "matters.list"}),
    "reachable needs a permission not held": lambda a: a["reachable"][0].update(
        required_permission="settings:write"
    ),
    "reachable with an extra field": lambda a: a["reachable"][0].update(title="x"),
    "reachable not a list": lambda a: a.update(reachable={"home": True}),
}


@pytest.mark.parametrize("change", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_answer_fails_closed(change: Any) -> None:
    with pytest.raises(OpaMalformed):
        parse_session_context(_broken(change), _request())


def test_a_denial_that_carries_a_resolution_fails_closed() -> None:
    answer = _answer()
    answer["decision"] = {"allow": False, "reason": "inactive", "status": 403}
    with pytest.raises(OpaMalformed):
        parse_session_context(answer, _request())


def test_an_allowed_resolution_for_an_unknown_actor_has_no_permissions() -> None:
    request = _request()
    request["actor"] = "nobody"
    with pytest.raises(OpaMalformed):
        parse_session_context(_answer(), request)


def test_the_gateway_asks_one_entry_point_once() -> None:
    transport = FakeTransport(default=_answer(), copy_inputs=True)
    gateway = PolicyGateway(transport)

    verdict = gateway.resolve_session_context(_request())

    assert verdict.decision.allow
    assert transport.asked == [(SESSION_CONTEXT, _request())]
    assert gateway.calls == 1
    assert SESSION_CONTEXT == "sessioncontext/resolve"
    assert SESSION_CONTEXT in ENTRYPOINTS


def test_the_gateway_fails_closed_on_garbage() -> None:
    gateway = PolicyGateway(FakeTransport(default=["not", "a", "resolution"]))
    with pytest.raises(OpaUnavailable):
        gateway.resolve_session_context(_request())


def test_reason_lists() -> None:
    assert "inactive" in REASONS
    assert {
        "not_reachable",
        "unknown_tool",
        "plane_mismatch",
        "missing_permission",
    } == INTENT_REASONS
