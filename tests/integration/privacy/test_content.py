"""Content writes, background answers and lazy reconciliation (decisions.md S4-7, stored rows).

Steps and answers are filtered under the run-row lock by the ceilings read in the
same transaction; a run without ceilings (historical) gets the current policy at its
first guarded write or attempt, filtering older content, and no historical provider
is invented. Reads never reconcile.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.privacy_world import PrivacyWorld, ceiling

pytestmark = pytest.mark.integration

META_DEFAULT = ceiling("metadata", False)
META_EXPLICIT = ceiling("metadata", True)

LEGACY_REQUEST = {
    "kind": "chat_request",
    "metadata": {"model": "m-0", "provider_id": "open-full"},
    "content": "an old request payload with personal data",
}


# ------------------------------------------------------------------ steps


def test_a_step_keeps_only_what_the_ceiling_keeps(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "eu-meta")

    stored = shared.step(
        run,
        "the full prompt",
        kind="tool_call",
        metadata={"tool_name": "search", "status": "ok", "duration_ms": 12},
    )

    assert stored["seq"] == 1
    assert stored["kept"] == ["kind", "metadata"]
    assert shared.steps(run) == [
        {
            "kind": "tool_call",
            "metadata": {"tool_name": "search", "status": "ok", "duration_ms": 12},
            "retention": "metadata",
        }
    ]


def test_a_step_under_a_full_ceiling_is_stored_whole(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")

    stored = shared.step(run, "the full prompt")

    assert stored["kept"] == ["content", "kind", "metadata"]
    assert shared.steps(run) == [
        {
            "kind": "chat_request",
            "metadata": {"model": "m-1", "status": "ok"},
            "content": "the full prompt",
            "retention": "full",
        }
    ]


def test_steps_get_consecutive_seqs(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")

    seqs = [shared.step(run, f"step {n}")["seq"] for n in range(3)]

    assert seqs == [1, 2, 3]


def test_a_task_ceiling_filters_steps_below_a_full_provider(shared: PrivacyWorld) -> None:
    run = shared.new_run(task_key="secret")

    ceilings = shared.attempt(run, "open-full")
    shared.step(run, "the full prompt")

    assert ceilings["audit_content"] == ceiling("none", True)
    assert shared.steps(run) == [{"kind": "chat_request", "retention": "none"}]


def test_a_step_body_is_closed_and_its_metadata_holds_identifiers_only(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.attempt(run, "eu-meta")
    smuggled: list[dict[str, Any]] = [
        {"kind": "chat_request", "prompt": "hidden next to the content"},
        {"kind": "chat_request", "metadata": {"note": "free text"}},
        {"kind": "chat_request", "metadata": {"model": "a model with spaces"}},
        {"kind": "chat_request", "metadata": {"tool_name": "https://example.com/x"}},
        {"kind": "free_text"},
    ]

    for body in smuggled:
        assert shared.step_response(run, body).status_code == 422, body
    assert shared.steps(run) == []


# ------------------------------------------------------------------ answers


def test_the_global_metadata_default_alone_keeps_the_answer(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    assert shared.attempt(run, "inherits")["background_answer"] == META_DEFAULT

    assert shared.answer(run, "Functional output.")

    assert shared.run_row(run)["background_answer"] == "Functional output."


def test_an_explicit_provider_metadata_ceiling_prohibits_the_answer(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    assert shared.attempt(run, "answer-meta")["background_answer"] == META_EXPLICIT

    response = shared.answer_response(run, "Must not be kept.")

    assert response.status_code == 200
    assert response.json() == {
        "stored": False,
        "ceilings": {"audit_content": ceiling("full", True), "background_answer": META_EXPLICIT},
    }
    assert shared.run_row(run)["background_answer"] is None


def test_an_explicit_task_metadata_ceiling_prohibits_the_answer_at_the_default(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run(task_key="hr-review")

    ceilings = shared.attempt(run, "inherits")
    stored = shared.answer(run, "Must not be kept either.")

    assert ceilings["background_answer"] == META_EXPLICIT
    assert not stored
    assert shared.run_row(run)["background_answer"] is None


def test_an_explicit_metadata_fallback_removes_an_answer_kept_under_the_default(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.attempt(run, "inherits")
    assert shared.answer(run, "Kept under the default.")

    shared.attempt(run, "answer-meta")

    assert shared.run_row(run)["background_answer"] is None
    assert not shared.answer(run, "Written again with an old handle.")
    assert shared.run_row(run)["background_answer"] is None


# ------------------------------------------------------------------ reconciliation


def test_a_historical_run_is_readable_and_reading_does_not_reconcile(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.insert_legacy_step(run, LEGACY_REQUEST)

    body = shared.privacy(run)

    assert body == {"attempted_provider_ids": []}
    row = shared.run_row(run)
    assert row["audit_content_ceiling"] is None
    assert row["background_answer_ceiling"] is None
    assert shared.steps(run) == [LEGACY_REQUEST]
    assert shared.client().get(f"/api/v1/runs/{shared.id('historical')}/privacy").json() == {
        "attempted_provider_ids": []
    }


def test_the_first_write_reconciles_with_the_current_policy_and_invents_no_provider(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.insert_legacy_step(run, LEGACY_REQUEST)
    shared.set_legacy_answer(run, "An old answer.")

    stored = shared.step(run, "a new prompt")

    assert stored["ceilings"] == {"audit_content": META_DEFAULT, "background_answer": META_DEFAULT}
    assert shared.steps(run) == [
        {"kind": "chat_request", "metadata": LEGACY_REQUEST["metadata"], "retention": "metadata"},
        {
            "kind": "chat_request",
            "metadata": {"model": "m-1", "status": "ok"},
            "retention": "metadata",
        },
    ]
    row = shared.run_row(run)
    # The global metadata default keeps the answer as functional output.
    assert row["background_answer"] == "An old answer."
    assert row["attempted_provider_ids"] == []
    assert shared.attempts(run) == []


def test_the_first_attempt_reconciles_old_request_payloads(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.insert_legacy_step(run, LEGACY_REQUEST)
    shared.set_legacy_answer(run, "An old answer.")

    shared.attempt(run, "strict-none")

    assert shared.steps(run) == [{"kind": "chat_request", "retention": "none"}]
    row = shared.run_row(run)
    assert row["background_answer"] is None
    assert row["attempted_provider_ids"] == ["strict-none"]


def test_a_first_answer_write_applies_the_task_policy(shared: PrivacyWorld) -> None:
    run = shared.new_run(task_key="hr-review")
    shared.set_legacy_answer(run, "An old answer.")

    response = shared.answer_response(run, "A new answer.")

    assert response.json()["stored"] is False
    assert shared.run_row(run)["background_answer"] is None


def test_unreadable_historical_content_stops_the_run_until_repaired(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.insert_legacy_step(run, ["not", "an", "object"])

    refused = shared.attempt_response(run, "eu-meta")

    assert refused.status_code == 503
    assert shared.run_row(run)["attempted_provider_ids"] == []
    shared.sql("DELETE FROM run_steps WHERE run_id = %(id)s", id=run)
    assert shared.attempt(run, "eu-meta")["audit_content"] == META_EXPLICIT
