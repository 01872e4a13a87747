"""Every answer of the policies is validated before use, down to the enums.

A malformed answer raises ``OpaMalformed`` (an ``OpaUnavailable``, so the request
fails closed with 503); it never becomes a guessed decision or a weaker trust marker.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.decisions import Decision
from app.opa_client import OpaMalformed, OpaUnavailable, OpaUndefined
from app.policy import PolicyGateway, Role, Trust
from app.policy.gateway import DECISION, RUN_CONTEXT, TRIGGER_HOLDERS
from app.policy.inputs import AuthorRef, CandidateThread, RunContextInput
from app.policy.results import (
    AuthorClass,
    parse_decision,
    parse_run_context,
    parse_trigger_holders,
)
from tests.unit.fakes import FakeTransport

THREADS: list[CandidateThread] = [
    {"id": "t1", "channel_id": "general", "seqs": [1, 2, 3]},
    {"id": "main", "channel_id": "general", "seqs": [7]},
]
AUTHORS: list[AuthorRef] = [{"id": "alex", "origin": "human"}, {"id": "lotse", "origin": "agent"}]


def _answer(**changes: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "readable": [{"thread_id": "t1", "seqs": [1, 3]}, {"thread_id": "main", "seqs": []}],
        "trigger_holders": ["alex"],
        "classes": [
            {"author_id": "alex", "origin": "human", "role": "user", "trust": "trigger"},
            {"author_id": "lotse", "origin": "agent", "role": "assistant", "trust": "self"},
        ],
    }
    answer.update(changes)
    return answer


class TestDecision:
    @pytest.mark.parametrize(
        ("result", "expected"),
        [
            ({"allow": True, "reason": "allowed", "status": 200}, Decision(True, "allowed", 200)),
            (
                {"allow": False, "reason": "not_found", "status": 404},
                Decision(False, "not_found", 404),
            ),
            (
                {"allow": False, "reason": "no_grant", "status": 403},
                Decision(False, "no_grant", 403),
            ),
        ],
    )
    def test_a_well_formed_decision_is_read(self, result: Any, expected: Decision) -> None:
        assert parse_decision(result) == expected

    @pytest.mark.parametrize(
        "result",
        [
            None,
            True,
            [],
            {},
            {"allow": "true", "reason": "allowed", "status": 200},
            {"allow": True, "reason": 7, "status": 200},
            {"allow": True, "reason": "allowed", "status": "200"},
            {"allow": True, "reason": "allowed", "status": True},
            {"allow": True, "reason": "allowed"},
            {"allow": True, "reason": "because", "status": 200},
            {"allow": True, "reason": "allowed", "status": 403},
            {"allow": False, "reason": "not_found", "status": 200},
            {"allow": False, "reason": "no_grant", "status": 500},
        ],
    )
    def test_anything_else_fails_closed(self, result: Any) -> None:
        with pytest.raises(OpaMalformed):
            parse_decision(result)

    def test_malformed_is_unavailable_so_the_edge_answers_503(self) -> None:
        assert issubclass(OpaMalformed, OpaUnavailable)


class TestRunContext:
    def test_a_well_formed_answer_is_read_against_what_was_sent(self) -> None:
        verdict = parse_run_context(_answer(), THREADS, AUTHORS)

        assert verdict.readable == frozenset({("t1", 1), ("t1", 3)})
        assert verdict.is_readable("t1", 3)
        assert not verdict.is_readable("t1", 2)
        assert verdict.trigger_holders == ("alex",)
        assert verdict.class_of("lotse", "agent") == AuthorClass(Role.ASSISTANT, Trust.SELF)

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("role", "admin"),
            ("trust", "trusted"),
            ("trust", None),
            ("role", 1),
        ],
    )
    def test_a_role_or_trust_outside_the_contract_fails_closed(
        self, field: str, value: Any
    ) -> None:
        answer = _answer()
        answer["classes"][0][field] = value

        with pytest.raises(OpaMalformed, match="role or trust"):
            parse_run_context(answer, THREADS, AUTHORS)

    def test_a_missing_class_fails_closed(self) -> None:
        answer = _answer()
        answer["classes"].pop()

        with pytest.raises(OpaMalformed, match="classes"):
            parse_run_context(answer, THREADS, AUTHORS)

    def test_a_class_of_an_author_that_was_not_sent_fails_closed(self) -> None:
        answer = _answer()
        answer["classes"][1]["author_id"] = "robin"

        with pytest.raises(OpaMalformed, match="another author"):
            parse_run_context(answer, THREADS, AUTHORS)

    def test_a_class_with_another_origin_fails_closed(self) -> None:
        answer = _answer()
        answer["classes"][0]["origin"] = "import"

        with pytest.raises(OpaMalformed, match="another author"):
            parse_run_context(answer, THREADS, AUTHORS)

    @pytest.mark.parametrize(
        "readable",
        [
            [{"thread_id": "t1", "seqs": [1, 9]}, {"thread_id": "main", "seqs": []}],
            [{"thread_id": "t1", "seqs": ["1"]}, {"thread_id": "main", "seqs": []}],
            [{"thread_id": "t1", "seqs": [True]}, {"thread_id": "main", "seqs": []}],
            [{"thread_id": "other", "seqs": [1]}, {"thread_id": "main", "seqs": []}],
            [{"thread_id": "t1", "seqs": [1]}],
            [{"thread_id": "t1", "seqs": [1]}, {"thread_id": "main"}],
            [{"thread_id": "main", "seqs": []}, {"thread_id": "t1", "seqs": [1]}],
            {"t1": [1]},
            None,
        ],
    )
    def test_a_readable_position_that_was_not_sent_or_a_missing_part_fails_closed(
        self, readable: Any
    ) -> None:
        with pytest.raises(OpaMalformed, match="readable"):
            parse_run_context(_answer(readable=readable), THREADS, AUTHORS)

    @pytest.mark.parametrize("holders", [None, "alex", [1], {"alex": True}])
    def test_trigger_holders_of_the_wrong_shape_fail_closed(self, holders: Any) -> None:
        with pytest.raises(OpaMalformed, match="trigger holders"):
            parse_run_context(_answer(trigger_holders=holders), THREADS, AUTHORS)

    @pytest.mark.parametrize("result", [None, [], "ok", 1])
    def test_an_answer_that_is_not_an_object_fails_closed(self, result: Any) -> None:
        with pytest.raises(OpaMalformed):
            parse_run_context(result, THREADS, AUTHORS)


class TestTriggerHolders:
    def test_an_ascending_subset_of_the_candidates_is_read(self) -> None:
        assert parse_trigger_holders(["alex", "sam"], ["sam", "robin", "alex"]) == ("alex", "sam")

    @pytest.mark.parametrize(
        "result", [None, "alex", [1], ["mallory"], ["sam", "alex"], ["alex", "alex"]]
    )
    def test_anything_else_fails_closed(self, result: Any) -> None:
        with pytest.raises(OpaMalformed):
            parse_trigger_holders(result, ["alex", "sam"])


def _run_context_input() -> RunContextInput:
    return {
        "actor": "lotse",
        "run": {"id": "r1", "agent_id": "lotse", "channel_id": "general", "thread_id": "t1"},
        "threads": THREADS,
        "authors": AUTHORS,
        "facts": {"now": "", "principals": {}, "channels": {}, "spaces": {}, "grants": []},
    }


class TestGateway:
    def test_each_entry_point_asks_its_own_path_with_the_input_as_sent(self) -> None:
        transport = FakeTransport(
            {
                DECISION: {"allow": True, "reason": "allowed", "status": 200},
                RUN_CONTEXT: _answer(),
                TRIGGER_HOLDERS: ["alex"],
            }
        )
        gateway = PolicyGateway(transport)
        request = _run_context_input()

        gateway.evaluate_run_context(request)
        gateway.trigger_holders(
            {"channel_id": "general", "candidates": ["alex"], "facts": request["facts"]}
        )
        gateway.policies_loaded()

        assert [path for path, _ in transport.asked] == [RUN_CONTEXT, TRIGGER_HOLDERS, DECISION]
        assert transport.asked[0][1] is request
        assert transport.asked[2][1]["action"] == "health.ready"
        assert gateway.calls == 3

    def test_the_run_context_answer_is_checked_against_the_input(self) -> None:
        answer = _answer(readable=[{"thread_id": "t1", "seqs": [4]}, {"thread_id": "main"}])
        gateway = PolicyGateway(FakeTransport({RUN_CONTEXT: answer}))

        with pytest.raises(OpaMalformed):
            gateway.evaluate_run_context(_run_context_input())

    def test_an_undefined_health_decision_means_the_policies_are_not_loaded(self) -> None:
        gateway = PolicyGateway(FakeTransport({DECISION: OpaUndefined("undefined")}))

        assert gateway.policies_loaded() is False

    def test_an_unreachable_opa_is_not_hidden_by_readiness(self) -> None:
        gateway = PolicyGateway(FakeTransport({DECISION: OpaUnavailable("down")}))

        with pytest.raises(OpaUnavailable):
            gateway.policies_loaded()
