"""The ``acting_for`` of a decision is validated like the rest of it (issue 21).

A decision may name a mode only when the request sent ``input.acting_for``, must name
the run that was sent, and its ``failed`` sides must fit the decision; anything else
is ``OpaMalformed`` (503), never a guessed mode. The relay never answers a session
with a bound run in mode ``own`` unless the policy said so.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from agent_sdk.policy_reasons import POLICY_REASONS
from app.domain.decisions import OWN, ActingFor, ActingForMode
from app.opa_client import OpaMalformed
from app.policy.inputs import ActingForInput
from app.policy.results import REASONS, parse_decision
from app.usecases.comms_relay import _mode
from tests.support.services import REPO_ROOT

SENT: ActingForInput = {
    "run": {"id": "run-1", "agent_id": "lotse", "state": "running"},
    "requester": "alex",
}
ALLOWED = {"allow": True, "reason": "allowed", "status": 200}
EXCEEDED = {"allow": False, "reason": "acting_for_exceeded", "status": 403}


def _with(decision: dict[str, Any], acting_for: Any) -> dict[str, Any]:
    return {**decision, "acting_for": acting_for}


def test_the_new_reasons_are_on_the_contracts_closed_list() -> None:
    import yaml

    spec = yaml.safe_load((REPO_ROOT / "openapi" / "openapi.yaml").read_text(encoding="utf-8"))
    listed = spec["components"]["schemas"]["Problem"]["x-policy-reasons"]

    assert {"acting_for_exceeded", "run_required"} <= REASONS
    assert set(listed) == REASONS
    assert len(listed) == len(set(listed))


def test_the_server_and_the_sdk_share_one_reason_list() -> None:
    assert REASONS is POLICY_REASONS


@pytest.mark.parametrize(
    "module", ["agent_sdk.policy_reasons", "agent_sdk.errors", "agent_sdk.rest", "agent_sdk.comms"]
)
def test_the_sdks_reason_list_loads_no_pydantic(module: str) -> None:
    # The list lives outside agent_sdk.contracts because that package loads pydantic,
    # which the SDK's plain modules (errors, rest, comms) must not; a fresh interpreter,
    # since this one has long loaded pydantic.
    probe = f"import sys, {module}; assert 'pydantic' not in sys.modules, 'pydantic loaded'"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_a_decision_without_acting_for_parses_as_before() -> None:
    decision = parse_decision(ALLOWED, SENT)

    assert decision.acting_for is None
    assert (decision.mode, decision.run_id) == ("own", None)


def test_mode_run_names_the_run_and_the_failed_sides() -> None:
    run = {"mode": "run", "run_id": "run-1", "failed": ["requester"]}

    decision = parse_decision(_with(EXCEEDED, run), SENT)

    assert decision.acting_for == ActingFor(ActingForMode.RUN, "run-1", ("requester",))
    assert (decision.mode, decision.run_id) == ("run", "run-1")
    assert decision.acting_for.view() == {"mode": "run", "run_id": "run-1"}


def test_mode_own_and_a_relay_allow_without_failed_sides() -> None:
    own = parse_decision(_with(ALLOWED, {"mode": "own"}), SENT)
    relay = parse_decision(_with(ALLOWED, {"mode": "run", "run_id": "run-1"}), SENT)

    assert own.acting_for == OWN
    assert OWN.view() == {"mode": "own"}
    assert relay.acting_for == ActingFor(ActingForMode.RUN, "run-1")


@pytest.mark.parametrize(
    ("decision", "sent"),
    [
        pytest.param(_with(ALLOWED, {"mode": "own"}), None, id="mode-without-acting-for-sent"),
        pytest.param(_with(ALLOWED, "run"), SENT, id="not-an-object"),
        pytest.param(_with(ALLOWED, {"mode": "both"}), SENT, id="unknown-mode"),
        pytest.param(_with(ALLOWED, {"mode": "own", "run_id": "run-1"}), SENT, id="own-with-run"),
        pytest.param(_with(ALLOWED, {"mode": "run"}), SENT, id="run-without-id"),
        pytest.param(_with(ALLOWED, {"mode": "run", "run_id": "run-2"}), SENT, id="another-run"),
        pytest.param(
            _with(ALLOWED, {"mode": "run", "run_id": "run-1", "failed": ["agent"]}),
            SENT,
            id="allowed-with-a-failed-side",
        ),
        pytest.param(
            _with(EXCEEDED, {"mode": "run", "run_id": "run-1", "failed": ["agent"]}),
            SENT,
            id="exceeded-blames-the-agent",
        ),
        pytest.param(
            _with(EXCEEDED, {"mode": "run", "run_id": "run-1", "failed": ["judge"]}),
            SENT,
            id="unknown-side",
        ),
        pytest.param(
            _with(EXCEEDED, {"mode": "run", "run_id": "run-1", "failed": "requester"}),
            SENT,
            id="failed-not-a-list",
        ),
        pytest.param(_with(EXCEEDED, {"mode": "own"}), SENT, id="exceeded-in-mode-own"),
        pytest.param(
            _with(
                {"allow": False, "reason": "run_required", "status": 403},
                {"mode": "run", "run_id": "run-1", "failed": []},
            ),
            SENT,
            id="run-required-in-mode-run",
        ),
        pytest.param(
            _with(
                EXCEEDED,
                {"mode": "run", "run_id": "run-1", "failed": ["requester"], "extra": 1},
            ),
            SENT,
            id="unknown-field",
        ),
    ],
)
def test_a_malformed_acting_for_fails_closed(
    decision: dict[str, Any], sent: ActingForInput | None
) -> None:
    with pytest.raises(OpaMalformed):
        parse_decision(decision, sent)


def test_the_relay_never_guesses_the_mode_of_a_session_with_a_bound_run() -> None:
    assert _mode(None, None) == OWN
    assert _mode(OWN, SENT) == OWN
    run = ActingFor(ActingForMode.RUN, "run-1")
    assert _mode(run, SENT) == run
    with pytest.raises(OpaMalformed):
        _mode(None, SENT)
