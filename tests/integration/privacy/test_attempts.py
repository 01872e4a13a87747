"""Provider attempts against the real PostgreSQL and OPA (decisions.md S4-7, persisted rows).

Criteria selection, fallback, failed attempts, resume and requeue, attempt ids, the
fail-closed refusals and "go" only after the commit. Every assertion about retention
reads the stored rows.
"""

from __future__ import annotations

import uuid

import pytest

from tests.support.privacy_world import PrivacyWorld, ceiling

pytestmark = pytest.mark.integration

FULL = ceiling("full", True)
META_EXPLICIT = ceiling("metadata", True)
META_DEFAULT = ceiling("metadata", False)
NONE = ceiling("none", True)


def test_criteria_selection_applies_the_selected_providers_ceilings(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    ceilings = shared.attempt(run, "eu-meta")

    assert ceilings == {"audit_content": META_EXPLICIT, "background_answer": META_EXPLICIT}
    row = shared.run_row(run)
    assert (row["audit_content_ceiling"], row["audit_content_ceiling_explicit"]) == (
        "metadata",
        True,
    )
    assert (row["background_answer_ceiling"], row["background_answer_ceiling_explicit"]) == (
        "metadata",
        True,
    )
    assert row["attempted_provider_ids"] == ["eu-meta"]


def test_go_is_answered_only_after_the_commit(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    shared.attempt(run, "strict-none")

    # An independent connection sees the tightened ceiling as soon as "go" arrived.
    row = shared.run_row(run)
    assert row["audit_content_ceiling"] == "none"
    assert row["attempted_provider_ids"] == ["strict-none"]


def test_an_inheriting_provider_gets_the_global_default(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    assert shared.attempt(run, "inherits") == {
        "audit_content": META_DEFAULT,
        "background_answer": META_DEFAULT,
    }


def test_a_stricter_fallback_tightens_and_refilters_earlier_steps_and_the_answer(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    shared.step(run, "the prompt sent to open-full", metadata={"model": "m-1"})
    shared.step(run, "the reply of open-full", kind="chat_response")
    assert shared.answer(run, "Background answer.")
    version_before = shared.run_row(run)["envelope_version"]

    ceilings = shared.attempt(run, "strict-none")

    assert ceilings == {"audit_content": NONE, "background_answer": NONE}
    assert shared.steps(run) == [
        {"kind": "chat_request", "retention": "none"},
        {"kind": "chat_response", "retention": "none"},
    ]
    row = shared.run_row(run)
    assert row["background_answer"] is None
    assert row["attempted_provider_ids"] == ["open-full", "strict-none"]
    assert row["envelope_version"] == version_before + 1


def test_a_looser_fallback_keeps_the_stricter_ceilings(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "strict-none")

    ceilings = shared.attempt(run, "open-full")
    shared.step(run, "a prompt for the looser fallback")

    assert ceilings == {"audit_content": NONE, "background_answer": NONE}
    assert shared.steps(run) == [{"kind": "chat_request", "retention": "none"}]
    assert not shared.answer(run)
    assert shared.run_row(run)["attempted_provider_ids"] == ["strict-none", "open-full"]


def test_failed_attempts_are_recorded_in_order_with_each_fallback(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    # Each attempt is recorded before its call, whether the provider then fails or not:
    # the service cannot tell, and the request may already have reached the provider.
    shared.attempt(run, "open-full", kind="chat")
    shared.attempt(run, "answer-meta", kind="chat")
    shared.attempt(run, "eu-meta", kind="tool")

    assert shared.privacy(run)["attempted_provider_ids"] == ["open-full", "answer-meta", "eu-meta"]
    attempts = shared.attempts(run)
    assert [(a["position"], a["provider_id"], a["kind"]) for a in attempts] == [
        (1, "open-full", "chat"),
        (2, "answer-meta", "chat"),
        (3, "eu-meta", "tool"),
    ]
    assert shared.privacy(run)["ceilings"] == {
        "audit_content": META_EXPLICIT,
        "background_answer": META_EXPLICIT,
    }


@pytest.mark.parametrize(
    "path", [["running", "waiting_input", "running"], ["running", "queued", "running"]]
)
def test_resume_and_requeue_keep_the_ceilings(shared: PrivacyWorld, path: list[str]) -> None:
    run = shared.new_run()
    shared.attempt(run, "strict-none")

    for state in path:
        shared.set_state(run, state)
    ceilings = shared.attempt(run, "open-full")

    assert ceilings == {"audit_content": NONE, "background_answer": NONE}


def test_a_retried_attempt_id_is_checked_again_and_not_appended_twice(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    attempt_id = uuid.uuid4().hex
    shared.attempt(run, "inherits", attempt_id=attempt_id)

    retried = shared.attempt(run, "inherits", attempt_id=attempt_id)

    assert retried == {"audit_content": META_DEFAULT, "background_answer": META_DEFAULT}
    assert shared.run_row(run)["attempted_provider_ids"] == ["inherits"]
    assert len(shared.attempts(run)) == 1


def test_a_retry_reruns_the_guard_instead_of_replaying_the_first_answer(
    shared: PrivacyWorld,
) -> None:
    task = f"task-{uuid.uuid4().hex[:8]}"
    shared.set_task_policy(task, background_answer_ceiling="metadata")
    run = shared.new_run(task_key=task)
    attempt_id = uuid.uuid4().hex
    first = shared.attempt(run, "inherits", attempt_id=attempt_id)
    # The run's task tightens between the attempt and its retry: a replayed answer
    # would still say "metadata"; the guard runs again and says "none".
    shared.set_task_policy(task, background_answer_ceiling="none")

    retried = shared.attempt(run, "inherits", attempt_id=attempt_id)

    assert first["background_answer"] == META_EXPLICIT
    assert retried["background_answer"] == NONE
    assert shared.run_row(run)["attempted_provider_ids"] == ["inherits"]


def test_an_attempt_id_reused_for_another_provider_is_a_conflict(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    attempt_id = uuid.uuid4().hex
    shared.attempt(run, "open-full", attempt_id=attempt_id)

    other_provider = shared.attempt_response(run, "strict-none", attempt_id=attempt_id)
    other_kind = shared.attempt_response(run, "open-full", attempt_id=attempt_id, kind="tool")

    assert other_provider.status_code == 409
    assert other_kind.status_code == 409
    row = shared.run_row(run)
    assert row["attempted_provider_ids"] == ["open-full"]
    assert row["audit_content_ceiling"] == "full"


def test_an_unknown_provider_is_refused_and_changes_nothing(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full")
    shared.step(run, "kept in full")

    response = shared.attempt_response(run, "shadow-llm")

    assert response.status_code == 403
    assert response.json()["reason"] == "unknown_provider"
    row = shared.run_row(run)
    assert row["attempted_provider_ids"] == ["open-full"]
    assert row["audit_content_ceiling"] == "full"
    assert shared.steps(run)[0]["content"] == "kept in full"
    audited = shared.sql(
        "SELECT count FROM audit_log WHERE action = 'provider.attempt' "
        "AND reason = 'unknown_provider' AND actor_id = %(actor)s",
        actor=shared.id("lotse"),
    )
    assert audited
    assert audited[0]["count"] >= 1


@pytest.mark.parametrize(
    "provider_id",
    [
        "https://api.example.com/v1",
        "api.example.com:443",
        "models/eu",
        "open full",
        "Open-Full",
        "a" * 65,
        "-leading-dash",
        "open-full\n",
    ],
)
def test_a_provider_id_that_is_not_an_id_is_rejected(
    shared: PrivacyWorld, provider_id: str
) -> None:
    run = shared.new_run()

    response = shared.attempt_response(run, provider_id)

    assert response.status_code == 422
    assert shared.run_row(run)["attempted_provider_ids"] == []
    assert provider_id not in response.text


def test_an_attempt_id_that_is_not_an_id_is_rejected(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    for attempt_id in ("attempt 1", "a/b", "x" * 129, "", "retry\n"):
        response = shared.attempt_response(run, "open-full", attempt_id=attempt_id)
        assert response.status_code == 422, attempt_id
    assert shared.attempts(run) == []


def test_no_attempt_response_is_cacheable(shared: PrivacyWorld) -> None:
    run = shared.new_run()

    response = shared.attempt_response(run, "open-full")

    assert response.headers["Cache-Control"] == "no-store"


def test_a_run_records_at_most_a_thousand_attempts(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    shared.attempt(run, "open-full", attempt_id="a-0")
    # The other 999 written directly: a thousand guarded round trips would only be slow.
    shared.sql(
        "UPDATE runs SET attempted_provider_ids = attempted_provider_ids "
        "|| array_fill('open-full'::text, ARRAY[999]) WHERE id = %(id)s",
        id=run,
    )

    refused = shared.attempt_response(run, "open-full", attempt_id="a-1000")
    replayed = shared.attempt_response(run, "open-full", attempt_id="a-0")

    assert (refused.status_code, refused.json()["code"]) == (409, "conflict")
    assert len(shared.run_row(run)["attempted_provider_ids"]) == 1000
    assert [a["attempt_id"] for a in shared.attempts(run)] == ["a-0"]
    # A retry of a recorded attempt still gets "go"; the read shows all thousand.
    assert replayed.status_code == 200
    assert len(shared.privacy(run)["attempted_provider_ids"]) == 1000
