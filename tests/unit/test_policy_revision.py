"""Every decision names the policy revision that made it (OPA's provenance).

The gateway reads the revision of the active bundle from the provenance OPA sends with
each answer, validates it, puts it on decisions and tells an observer; with
``require_revision`` an answer without one fails closed.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.opa_client import OpaMalformed
from app.policy import PolicyGateway, resources
from app.policy.gateway import DECISION, PRIVACY_ATTEMPT
from app.policy.inputs import DecisionInput
from app.policy.privacy_results import AttemptRefused
from app.policy.results import parse_revision
from tests.unit.fakes import FakeTransport

ALLOW = {"allow": True, "reason": "allowed", "status": 200}
DENY = {"allow": False, "reason": "no_grant", "status": 403}
REQUEST: DecisionInput = {
    "action": "message.list",
    "actor": "a",
    "resource": resources.instance(),
    "facts": {"now": "", "principals": {}, "channels": {}, "spaces": {}, "grants": []},
}


def provenance(**bundles: str) -> dict[str, Any]:
    """OPA's provenance member for these bundle revisions (as OPA 1.x sends it)."""
    return {
        "version": "1.22.3",
        "build_commit": "",
        "bundles": {name: {"revision": revision} for name, revision in bundles.items()},
    }


class TestParseRevision:
    def test_the_revision_of_the_one_bundle_is_read(self) -> None:
        assert parse_revision(provenance(**{"agent-authz": "4f1c2ab-dirty"})) == "4f1c2ab-dirty"

    @pytest.mark.parametrize(
        "answer",
        [
            None,
            {"version": "1.22.3"},
            {"version": "1.22.3", "bundles": {}},
            provenance(**{"agent-authz": ""}),
            {"bundles": {"agent-authz": {}}},
        ],
        ids=["no provenance", "no bundles", "empty bundles", "empty revision", "no revision"],
    )
    def test_no_bundle_revision_is_none(self, answer: Any) -> None:
        assert parse_revision(answer) is None

    def test_the_legacy_single_bundle_form_is_read(self) -> None:
        assert parse_revision({"version": "1.22.3", "revision": "4f1c2ab"}) == "4f1c2ab"

    @pytest.mark.parametrize(
        "answer",
        [
            "4f1c2ab",
            {"bundles": ["agent-authz"]},
            {"bundles": {"agent-authz": "4f1c2ab"}},
            provenance(a="1", b="2"),
            provenance(**{"agent-authz": "has space"}),
            provenance(**{"agent-authz": "x" * 129}),
            provenance(**{"agent-authz": "line\n"}),
            provenance(**{"agent-authz": '"quoted"'}),
            {"bundles": {"agent-authz": {"revision": 7}}},
        ],
        ids=[
            "not an object",
            "bundles not an object",
            "bundle not an object",
            "two bundles",
            "space",
            "too long",
            "trailing newline",
            "quotes",
            "not a string",
        ],
    )
    def test_anything_else_is_malformed(self, answer: Any) -> None:
        with pytest.raises(OpaMalformed):
            parse_revision(answer)


class TestGateway:
    def test_a_decision_carries_the_revision_that_made_it(self) -> None:
        transport = FakeTransport({DECISION: DENY}, provenance=provenance(**{"agent-authz": "r1"}))

        decision = PolicyGateway(transport).decide(REQUEST)

        assert (decision.allow, decision.reason, decision.revision) == (False, "no_grant", "r1")

    def test_without_a_bundle_the_decision_has_no_revision(self) -> None:
        decision = PolicyGateway(FakeTransport({DECISION: ALLOW})).decide(REQUEST)

        assert decision.revision is None

    def test_the_observer_hears_the_revision_of_every_answer(self) -> None:
        seen: list[str | None] = []
        transport = FakeTransport({DECISION: ALLOW}, provenance=provenance(**{"agent-authz": "r2"}))
        gateway = PolicyGateway(transport, on_revision=seen.append)

        gateway.decide(REQUEST)
        assert gateway.policies_loaded()

        assert seen == ["r2", "r2"]

    def test_a_required_revision_that_is_missing_fails_closed(self) -> None:
        seen: list[str | None] = []
        gateway = PolicyGateway(
            FakeTransport({DECISION: ALLOW}), require_revision=True, on_revision=seen.append
        )

        with pytest.raises(OpaMalformed):
            gateway.decide(REQUEST)
        with pytest.raises(OpaMalformed):
            gateway.policies_loaded()
        assert seen == [None, None]

    def test_a_required_revision_that_is_present_decides(self) -> None:
        transport = FakeTransport({DECISION: ALLOW}, provenance=provenance(**{"agent-authz": "r3"}))

        decision = PolicyGateway(transport, require_revision=True).decide(REQUEST)

        assert decision.allow
        assert decision.revision == "r3"

    def test_an_unreadable_revision_fails_closed_even_when_not_required(self) -> None:
        transport = FakeTransport(
            {DECISION: ALLOW}, provenance=provenance(**{"agent-authz": "bad revision"})
        )

        with pytest.raises(OpaMalformed):
            PolicyGateway(transport).decide(REQUEST)

    def test_a_refused_attempt_carries_the_revision(self) -> None:
        refused = {"outcome": "refused", "decision": {**DENY, "reason": "unknown_provider"}}
        transport = FakeTransport(
            {PRIVACY_ATTEMPT: refused}, provenance=provenance(**{"agent-authz": "r4"})
        )

        verdict = PolicyGateway(transport).privacy_attempt({"run": {}})  # type: ignore[typeddict-item]

        assert isinstance(verdict, AttemptRefused)
        assert verdict.decision.revision == "r4"

    def test_the_correlation_id_of_the_request_goes_with_every_call(self) -> None:
        transport = FakeTransport({DECISION: ALLOW})
        gateway = PolicyGateway(transport, correlation_id=lambda: "corr-0001-abcd")

        gateway.decide(REQUEST)
        gateway.policies_loaded()

        assert transport.correlation_ids == ["corr-0001-abcd", "corr-0001-abcd"]
