"""Naming what changed between two answers (policydiff.compare)."""

from __future__ import annotations

from typing import Any

from policydiff.compare import Change, changes

ALLOWED = {"allow": True, "reason": "allowed", "status": 200}
NOT_FOUND = {"allow": False, "reason": "not_found", "status": 404}
NO_GRANT = {"allow": False, "reason": "no_grant", "status": 403}
ARCHIVED = {"allow": False, "reason": "archived", "status": 403}
POST = {"action": "message.post", "actor": "alex"}


def _r(value: Any) -> dict[str, Any]:
    return {"result": value}


def _kinds(found: list[Change]) -> list[tuple[str, str, bool]]:
    return [(change.action, change.kind, change.widening) for change in found]


def test_equal_answers_are_no_change() -> None:
    assert changes("authz/decision", POST, _r(ALLOWED), _r(ALLOWED)) == []
    assert changes("authz/decision", POST, {}, {}) == []


def test_deny_to_allow_is_widening_and_names_both_answers() -> None:
    (change,) = changes("authz/decision", POST, _r(NOT_FOUND), _r(ALLOWED))
    assert change == Change(
        "message.post", "deny_to_allow", True, "not_found (404) -> allowed (200)"
    )


def test_allow_to_deny_is_not_widening() -> None:
    assert _kinds(changes("authz/decision", POST, _r(ALLOWED), _r(NO_GRANT))) == [
        ("message.post", "allow_to_deny", False)
    ]


def test_a_denial_that_becomes_visible_is_widening() -> None:
    assert _kinds(changes("authz/decision", POST, _r(NOT_FOUND), _r(NO_GRANT))) == [
        ("message.post", "reason_changed", True)
    ]
    assert _kinds(changes("authz/decision", POST, _r(NO_GRANT), _r(ARCHIVED))) == [
        ("message.post", "reason_changed", False)
    ]


def test_status_alone() -> None:
    moved = {**NO_GRANT, "status": 404}
    assert _kinds(changes("authz/decision", POST, _r(moved), _r(NO_GRANT))) == [
        ("message.post", "status_changed", True)
    ]


def test_undefined_and_errors() -> None:
    assert _kinds(changes("authz/decision", POST, _r(ALLOWED), {})) == [
        ("message.post", "became_undefined", False)
    ]
    assert _kinds(changes("authz/decision", POST, {}, _r(ALLOWED))) == [
        ("message.post", "became_defined", True)
    ]
    assert _kinds(changes("authz/decision", POST, _r(ALLOWED), {"error": "http_500"})) == [
        ("message.post", "became_error", False)
    ]


def _evaluation(readable: list[int], holders: list[str], trust: str, role: str = "user") -> Any:
    return _r(
        {
            "readable": [{"thread_id": "t", "seqs": readable}],
            "trigger_holders": holders,
            "classes": [{"author_id": "sam", "origin": "human", "role": role, "trust": trust}],
        }
    )


def test_run_context_parts_are_named_separately() -> None:
    base = _evaluation([1], [], "unverified")
    head = _evaluation([1, 2], ["sam"], "authorized")

    assert _kinds(changes("runcontext/evaluate", {}, base, head)) == [
        ("message.read", "deny_to_allow", True),
        ("trigger_holders", "trigger_holders_changed", True),
        ("classes", "trust_or_role_changed", True),
    ]
    assert _kinds(changes("runcontext/evaluate", {}, head, base)) == [
        ("message.read", "allow_to_deny", False),
        ("trigger_holders", "trigger_holders_changed", False),
        ("classes", "trust_or_role_changed", False),
    ]


def test_a_stronger_trust_marker_is_widening_a_weaker_one_is_not() -> None:
    for weaker, stronger in (
        ("unverified", "trigger"),
        ("authorized", "trigger"),
        ("system", "authorized"),
    ):
        (up,) = changes(
            "runcontext/evaluate", {}, _evaluation([], [], weaker), _evaluation([], [], stronger)
        )
        (down,) = changes(
            "runcontext/evaluate", {}, _evaluation([], [], stronger), _evaluation([], [], weaker)
        )
        assert (up.widening, down.widening) == (True, False)
    (role,) = changes(
        "runcontext/evaluate",
        {},
        _evaluation([], [], "unverified", role="other"),
        _evaluation([], [], "unverified", role="user"),
    )
    assert role.widening
    assert role.transition == "origin human: other/unverified -> user/unverified"


def test_trigger_holders_gained_and_lost_are_two_changes() -> None:
    found = changes("runcontext/trigger_holders", {}, _r(["alex"]), _r(["sam"]))
    assert [(c.kind, c.widening, c.transition) for c in found] == [
        ("trigger_holders_changed", True, "holders gained"),
        ("trigger_holders_changed", False, "holders lost"),
    ]


def _resolution(decision: dict[str, Any], intents: list[Any], reachable: list[str]) -> Any:
    return _r(
        {
            "decision": decision,
            "permissions": [],
            "reachable": [{"surface_key": key} for key in reachable],
            "intents": intents,
        }
    )


def test_session_context_intents_and_surfaces() -> None:
    request = {"action": "session_context.resolve", "intents": [{"name": "query_matters"}]}
    base = _resolution(ALLOWED, [{"decision": "denied", "reason": "missing_permission"}], [])
    head = _resolution(ALLOWED, [{"decision": "accepted"}], ["home"])

    assert _kinds(changes("sessioncontext/resolve", request, base, head)) == [
        ("surface.reach", "deny_to_allow", True),
        ("intent query_matters", "deny_to_allow", True),
    ]


def test_a_refused_caller_is_compared_by_its_decision_only() -> None:
    request = {"action": "session_context.resolve"}
    denied = _r({"decision": {"allow": False, "reason": "inactive", "status": 403}})
    allowed = _resolution(ALLOWED, [], [])
    assert _kinds(changes("sessioncontext/resolve", request, denied, allowed)) == [
        ("session_context.resolve", "deny_to_allow", True)
    ]


def _go(audit: str, answer: str, kept: bool) -> Any:
    return _r(
        {
            "outcome": "go",
            "ceilings": {
                "audit_content": {"level": audit, "explicit": True},
                "background_answer": {"level": answer, "explicit": False},
            },
            "changed": True,
            "retention": {"step_parts": ["kind"], "answer": kept},
        }
    )


def test_privacy_outcomes_and_ceilings() -> None:
    refused = _r(
        {
            "outcome": "refused",
            "decision": {"allow": False, "reason": "unknown_provider", "status": 403},
        }
    )
    assert _kinds(changes("privacy/attempt", {}, refused, _go("none", "none", False))) == [
        ("privacy.attempt", "deny_to_allow", True)
    ]
    assert _kinds(
        changes("privacy/attempt", {}, _go("none", "none", False), _r({"outcome": "unreadable"}))
    ) == [("privacy.attempt", "allow_to_deny", False)]
    looser = changes(
        "privacy/write", {}, _go("none", "metadata", False), _go("full", "metadata", False)
    )
    assert _kinds(looser) == [("privacy.write", "ceilings_changed", True)]
    assert looser[0].transition == "audit_content none explicit -> full explicit"
    kept = changes(
        "privacy/write", {}, _go("none", "metadata", False), _go("none", "metadata", True)
    )
    assert _kinds(kept) == [("privacy.write", "ceilings_changed", True)]
    stricter = changes(
        "privacy/write", {}, _go("full", "metadata", True), _go("none", "metadata", False)
    )
    assert _kinds(stricter) == [("privacy.write", "ceilings_changed", False)]


def test_a_difference_of_no_named_kind_is_never_dropped() -> None:
    assert _kinds(changes("authz/decision", POST, _r(ALLOWED), _r({**ALLOWED, "extra": 1}))) == [
        ("message.post", "other_changed", False)
    ]


# ---------------------------------------------------------------- acting for (issue 21)

RELAY = {"action": "runner.comms.relay", "actor": "runner-1"}
EXCEEDED = {"allow": False, "reason": "acting_for_exceeded", "status": 403}


def _run(decision: dict[str, Any], *failed: str) -> dict[str, Any]:
    return {**decision, "acting_for": {"mode": "run", "run_id": "run-1", "failed": list(failed)}}


def _own(decision: dict[str, Any]) -> dict[str, Any]:
    return {**decision, "acting_for": {"mode": "own"}}


def test_a_decision_that_stops_being_taken_for_the_requester_is_widening() -> None:
    run = {**ALLOWED, "acting_for": {"mode": "run", "run_id": "run-1"}}
    (change,) = changes("authz/decision", RELAY, _r(run), _r(_own(ALLOWED)))
    assert change == Change(
        "runner.comms.relay", "acting_for_changed", True, "allowed (200), mode run -> own"
    )
    assert _kinds(changes("authz/decision", POST, _r(_run(ALLOWED)), _r(ALLOWED))) == [
        ("message.post", "acting_for_changed", True)
    ]
    assert _kinds(changes("authz/decision", POST, _r(_run(NOT_FOUND, "agent")), _r(NOT_FOUND))) == [
        ("message.post", "acting_for_changed", True)
    ]


def test_a_decision_that_starts_being_taken_for_the_requester_is_not_widening() -> None:
    (change,) = changes("authz/decision", POST, _r(_own(ALLOWED)), _r(_run(ALLOWED)))
    assert change == Change(
        "message.post", "acting_for_changed", False, "allowed (200), mode own -> run"
    )
    other = {**ALLOWED, "acting_for": {"mode": "run", "run_id": "run-2", "failed": []}}
    assert changes("authz/decision", POST, _r(_run(ALLOWED)), _r(other)) == [
        Change("message.post", "acting_for_changed", False, "allowed (200), another run_id")
    ]


def test_failed_sides_changing_on_a_still_denied_decision_is_not_widening() -> None:
    both = _r(_run(NOT_FOUND, "agent", "requester"))
    (change,) = changes("authz/decision", POST, both, _r(_run(NOT_FOUND, "agent")))
    assert change == Change(
        "message.post",
        "acting_for_changed",
        False,
        "not_found (404), failed agent and requester -> agent",
    )
    # Another reason or status is named as such (here a 404 that becomes visible).
    assert _kinds(changes("authz/decision", POST, both, _r(_run(NO_GRANT, "agent")))) == [
        ("message.post", "reason_changed", True)
    ]
    (grown,) = changes("authz/decision", POST, _r(_run(NOT_FOUND, "agent")), both)
    assert not grown.widening


def test_the_decision_change_names_a_record_whose_acting_for_changed_too() -> None:
    assert _kinds(
        changes("authz/decision", POST, _r(_run(EXCEEDED, "requester")), _r(_run(ALLOWED)))
    ) == [("message.post", "deny_to_allow", True)]
    assert _kinds(changes("authz/decision", POST, _r(_run(ALLOWED)), _r(_own(ALLOWED)))) == [
        ("message.post", "acting_for_changed", True)
    ]
