"""The closed reason list is the same on both sides of the policy boundary."""

from __future__ import annotations

import re

import pytest

from app.opa_client import OpaMalformed
from app.policy.results import REASONS, parse_decision
from tests.support.services import REPO_ROOT


def test_the_python_reason_list_equals_the_rego_one() -> None:
    source = (REPO_ROOT / "policies" / "authz" / "results" / "results.rego").read_text(
        encoding="utf-8"
    )
    block = re.search(r"reasons := \{(.*?)\}", source, flags=re.DOTALL)
    assert block is not None

    assert set(re.findall(r'"([a-z_]+)"', block.group(1))) == REASONS


@pytest.mark.parametrize("reason", ["not_enrolled", "not_agent_owner", "agent_inactive"])
def test_the_runner_and_workspace_reasons_parse_as_403_denials(reason: str) -> None:
    decision = parse_decision({"allow": False, "reason": reason, "status": 403})

    assert (decision.allow, decision.reason, decision.status) == (False, reason, 403)


def test_an_unknown_reason_fails_closed() -> None:
    with pytest.raises(OpaMalformed):
        parse_decision({"allow": False, "reason": "runner_says_so", "status": 403})
