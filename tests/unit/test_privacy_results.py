"""Validation of the privacy entry points' answers (``app/policy/results.py``).

Anything that is not exactly a result of ``data.privacy.attempt`` or
``data.privacy.write`` fails closed as :class:`OpaMalformed` (503), never as a "go".
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from app.domain.privacy import STEP_PARTS, Ceiling
from app.opa_client import OpaMalformed
from app.policy import PolicyGateway
from app.policy.gateway import ENTRYPOINTS, PRIVACY_ATTEMPT, PRIVACY_WRITE
from app.policy.inputs import CeilingFacts, PrivacyAttemptInput, PrivacyWriteInput
from app.policy.privacy_results import (
    AttemptRefused,
    CeilingsGo,
    PolicyUnreadable,
    Retention,
    StepPart,
    parse_privacy_attempt,
    parse_privacy_write,
)
from app.policy.results import REASONS
from tests.unit.fakes import FakeTransport

_STORED: dict[str, CeilingFacts] = {
    "audit_content": {"level": "full", "explicit": True},
    "background_answer": {"level": "metadata", "explicit": False},
}
_SENT: PrivacyAttemptInput = {
    "run": {"ceilings": copy.deepcopy(_STORED)},
    "provider": {"id": "openai-eu", "policy": {"audit_content": "metadata"}},
}
_SENT_NEW: PrivacyWriteInput = {"run": {}}


def _go(changed: bool = True) -> dict[str, Any]:
    return {
        "outcome": "go",
        "ceilings": {
            "audit_content": {"level": "metadata", "explicit": True},
            "background_answer": {"level": "metadata", "explicit": False},
        },
        "changed": changed,
        "retention": {"step_parts": ["kind", "metadata"], "answer": True},
    }


def test_a_go_is_read_down_to_its_enums() -> None:
    verdict = parse_privacy_attempt(_go(), _SENT)

    assert verdict == CeilingsGo(
        ceilings={
            "audit_content": Ceiling("metadata", True),
            "background_answer": Ceiling("metadata", False),
        },
        changed=True,
        retention=Retention(frozenset({StepPart.KIND, StepPart.METADATA}), answer=True),
    )
    assert isinstance(verdict, CeilingsGo)
    # The domain's ceiling carries the level's name, so it is written out as sent.
    assert {type(ceiling.level) for ceiling in verdict.ceilings.values()} == {str}


def test_an_unchanged_go_must_repeat_the_stored_ceilings() -> None:
    unchanged = {**_go(changed=False), "ceilings": copy.deepcopy(_STORED)}

    verdict = parse_privacy_attempt(unchanged, _SENT)

    assert isinstance(verdict, CeilingsGo)
    assert not verdict.changed


def test_unreadable_and_refused() -> None:
    refused = {
        "outcome": "refused",
        "decision": {"allow": False, "reason": "unknown_provider", "status": 403},
    }

    assert parse_privacy_attempt({"outcome": "unreadable"}, _SENT) == PolicyUnreadable()
    assert parse_privacy_write({"outcome": "unreadable"}, _SENT_NEW) == PolicyUnreadable()
    verdict = parse_privacy_attempt(refused, _SENT)
    assert isinstance(verdict, AttemptRefused)
    assert (verdict.decision.reason, verdict.decision.status) == ("unknown_provider", 403)


def test_a_write_is_read_like_an_attempt() -> None:
    verdict = parse_privacy_write(_go(), _SENT_NEW)

    assert isinstance(verdict, CeilingsGo)


Mutation = Callable[[dict[str, Any]], Any]


def _set(path: list[str], value: Any) -> Mutation:
    def mutate(result: dict[str, Any]) -> Any:
        target = result
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return result

    return mutate


def _drop(path: list[str]) -> Mutation:
    def mutate(result: dict[str, Any]) -> Any:
        target = result
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return result

    return mutate


@pytest.mark.parametrize(
    "mutate",
    [
        lambda _r: None,
        lambda _r: [],
        lambda _r: "go",
        _set(["outcome"], "maybe"),
        _set(["outcome"], True),
        _drop(["outcome"]),
        _drop(["ceilings"]),
        _drop(["changed"]),
        _drop(["retention"]),
        _set(["extra"], 1),
        _set(["changed"], "yes"),
        _set(["ceilings"], []),
        _drop(["ceilings", "background_answer"]),
        _set(["ceilings", "prompt_cache"], {"level": "none", "explicit": True}),
        _set(["ceilings", "audit_content", "level"], "secret"),
        _set(["ceilings", "audit_content", "level"], 1),
        _set(["ceilings", "audit_content", "explicit"], "true"),
        _set(["ceilings", "audit_content", "extra"], 1),
        _drop(["ceilings", "audit_content", "explicit"]),
        _set(["retention", "answer"], 1),
        _set(["retention", "step_parts"], "kind"),
        _set(["retention", "step_parts"], ["kind", "kind"]),
        _set(["retention", "step_parts"], ["kind", "prompt"]),
        _set(["retention", "step_parts"], [1]),
        _drop(["retention", "answer"]),
        _set(["retention", "extra"], True),
        # "unchanged" but not what was stored
        _set(["changed"], False),
    ],
)
def test_a_malformed_go_fails_closed(mutate: Mutation) -> None:
    result = mutate(_go())

    with pytest.raises(OpaMalformed):
        parse_privacy_attempt(result, _SENT)
    with pytest.raises(OpaMalformed):
        parse_privacy_write(result, _SENT_NEW)


@pytest.mark.parametrize(
    "result",
    [
        {"outcome": "unreadable", "ceilings": {}},
        {"outcome": "refused"},
        {"outcome": "refused", "decision": {"allow": True, "reason": "allowed", "status": 200}},
        {"outcome": "refused", "decision": {"allow": False, "reason": "teapot", "status": 403}},
        {"outcome": "refused", "decision": {"allow": False, "reason": "not_found", "status": 500}},
        {
            "outcome": "refused",
            "decision": {"allow": False, "reason": "unknown_provider", "status": 403},
            "ceilings": {},
        },
    ],
)
def test_a_malformed_refusal_fails_closed(result: dict[str, Any]) -> None:
    with pytest.raises(OpaMalformed):
        parse_privacy_attempt(result, _SENT)


def test_a_write_is_never_refused() -> None:
    refused = {
        "outcome": "refused",
        "decision": {"allow": False, "reason": "unknown_provider", "status": 403},
    }

    with pytest.raises(OpaMalformed):
        parse_privacy_write(refused, _SENT_NEW)


def test_the_mirrored_names_agree() -> None:
    assert tuple(part.value for part in StepPart) == STEP_PARTS
    assert "unknown_provider" in REASONS


def test_the_gateway_asks_the_privacy_entry_points() -> None:
    transport = FakeTransport(default=_go())
    gateway = PolicyGateway(transport)

    assert isinstance(gateway.privacy_attempt(_SENT), CeilingsGo)
    assert isinstance(gateway.privacy_write(_SENT_NEW), CeilingsGo)

    assert [path for path, _ in transport.asked] == [PRIVACY_ATTEMPT, PRIVACY_WRITE]
    assert transport.asked[0][1] is _SENT
    assert {PRIVACY_ATTEMPT, PRIVACY_WRITE} <= set(ENTRYPOINTS)
    assert gateway.calls == 2
