"""The adapter side: guarded dispatch against the real service (decisions.md S4-7, dispatch tests).

The boundary runs before both the chat and the tool adapter, and before failed
attempts and every fallback: each adapter checks, through an independent database
connection, that its attempt was already committed when it was called.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from agent_sdk.errors import Conflict, Forbidden
from agent_sdk.privacy import (
    AttemptKind,
    AttemptRefused,
    GuardedDispatcher,
    GuardMissing,
    MemoryResponseCache,
    NoProviderLeft,
    build_dispatcher,
)
from agent_sdk.rest import PrincipalClient
from tests.support.privacy_world import PrivacyWorld

pytestmark = pytest.mark.integration


class ProviderDown(Exception):
    """A provider call that failed after the request may have reached the provider."""


class RecordingAdapter:
    """An adapter that notes what the service had committed when it was called."""

    def __init__(self, world: PrivacyWorld, run_id: str, fail: frozenset[str] = frozenset()):
        self.world = world
        self.run_id = run_id
        self.fail = fail
        self.calls: list[tuple[str, list[str], str | None]] = []

    def __call__(self, provider_id: str, request: Any) -> dict[str, str]:
        row = self.world.run_row(self.run_id)
        self.calls.append(
            (provider_id, list(row["attempted_provider_ids"]), row["audit_content_ceiling"])
        )
        if provider_id in self.fail:
            raise ProviderDown(provider_id)
        return {"provider": provider_id, "reply": "ok"}


def _dispatcher(world: PrivacyWorld) -> GuardedDispatcher:
    return build_dispatcher(world.base_url, "tok-lotse")


def test_the_guard_runs_before_the_chat_adapter(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)

    reply = _dispatcher(shared).chat(adapter, {"messages": []}, provider_id="eu-meta", run_id=run)

    assert reply == {"provider": "eu-meta", "reply": "ok"}
    assert adapter.calls == [("eu-meta", ["eu-meta"], "metadata")]
    assert [a["kind"] for a in shared.attempts(run)] == ["chat"]


def test_the_guard_runs_before_the_tool_adapter(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)

    _dispatcher(shared).tool(adapter, {"tool": "search"}, provider_id="strict-none", run_id=run)

    assert adapter.calls == [("strict-none", ["strict-none"], "none")]
    assert [a["kind"] for a in shared.attempts(run)] == ["tool"]


def test_a_failed_attempt_stays_recorded_and_every_fallback_is_guarded(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run, fail=frozenset({"open-full", "answer-meta"}))

    reply = _dispatcher(shared).with_fallback(
        adapter,
        {"messages": []},
        kind=AttemptKind.CHAT,
        providers=iter(["open-full", "answer-meta", "strict-none"]),
        run_id=run,
    )

    assert reply["provider"] == "strict-none"
    assert adapter.calls == [
        ("open-full", ["open-full"], "full"),
        ("answer-meta", ["open-full", "answer-meta"], "full"),
        ("strict-none", ["open-full", "answer-meta", "strict-none"], "none"),
    ]


def test_when_every_provider_fails_all_attempts_are_recorded(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run, fail=frozenset({"open-full", "eu-meta"}))

    with pytest.raises(NoProviderLeft) as raised:
        _dispatcher(shared).with_fallback(
            adapter, {}, kind=AttemptKind.TOOL, providers=["open-full", "eu-meta"], run_id=run
        )

    assert isinstance(raised.value.__cause__, ProviderDown)
    assert shared.privacy(run)["attempted_provider_ids"] == ["open-full", "eu-meta"]


def test_a_refused_attempt_never_reaches_the_adapter_and_stops_the_fallback(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)

    with pytest.raises(AttemptRefused) as raised:
        _dispatcher(shared).with_fallback(
            adapter, {}, kind=AttemptKind.CHAT, providers=["shadow-llm", "open-full"], run_id=run
        )

    cause = raised.value.__cause__
    assert isinstance(cause, Forbidden)
    assert (cause.status, cause.code, cause.reason) == (403, "forbidden", "unknown_provider")
    assert adapter.calls == []
    assert shared.run_row(run)["attempted_provider_ids"] == []


def test_a_refusal_for_another_agents_run_never_reaches_the_adapter(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)
    texter = build_dispatcher(shared.base_url, "tok-texter")

    with pytest.raises(AttemptRefused):
        texter.chat(adapter, {}, provider_id="open-full", run_id=run)

    assert adapter.calls == []


def test_run_calls_bypass_the_response_cache_and_other_calls_keep_it(
    shared: PrivacyWorld,
) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)
    dispatcher = build_dispatcher(shared.base_url, "tok-lotse", cache=MemoryResponseCache())

    for _ in range(2):
        dispatcher.chat(adapter, {}, provider_id="open-full", run_id=run, idempotency_key="k1")
    for _ in range(2):
        dispatcher.chat(adapter, {}, provider_id="open-full", idempotency_key="k2")

    # Two guarded run calls (two attempts), one non-run call plus one replay.
    assert [call[0] for call in adapter.calls] == ["open-full", "open-full", "open-full"]
    assert shared.privacy(run)["attempted_provider_ids"] == ["open-full", "open-full"]


def test_a_dispatcher_without_the_guard_refuses_run_calls(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    adapter = RecordingAdapter(shared, run)
    unguarded = GuardedDispatcher()

    with pytest.raises(GuardMissing):
        unguarded.chat(adapter, {}, provider_id="open-full", run_id=run)
    assert unguarded.tool(adapter, {}, provider_id="open-full") == {
        "provider": "open-full",
        "reply": "ok",
    }

    assert [call[0] for call in adapter.calls] == ["open-full"]
    assert shared.run_row(run)["attempted_provider_ids"] == []


def test_the_production_factory_wires_the_guard(shared: PrivacyWorld) -> None:
    dispatcher = build_dispatcher(shared.base_url, "tok-lotse")

    assert isinstance(dispatcher.recorder, PrincipalClient)


def test_the_principal_client_covers_the_run_privacy_endpoints(shared: PrivacyWorld) -> None:
    run = shared.new_run()
    attempt_id = uuid.uuid4().hex

    with PrincipalClient(shared.base_url, "tok-lotse") as client:
        go = client.record_attempt(
            run, attempt_id=attempt_id, provider_id="answer-meta", kind="chat"
        )
        again = client.record_attempt(
            run, attempt_id=attempt_id, provider_id="answer-meta", kind="chat"
        )
        step = client.append_step(run, kind="chat_request", metadata={"model": "m-1"}, content="c")
        answer = client.put_answer(run, "An answer.")
        state = client.run_privacy(run)
        new_etag = client.rotate_envelope(run, etag=state.etag, sealed_envelope="a2V5")
        with pytest.raises(Conflict) as conflict:
            client.rotate_envelope(run, etag=state.etag, sealed_envelope="b2xk")

    ceilings = go.ceilings
    assert (ceilings.audit_content.level, ceilings.background_answer.explicit) == ("full", True)
    assert again.ceilings == ceilings
    assert step.kept == ["content", "kind", "metadata"]
    assert answer.stored is False
    assert state.privacy.ceilings == ceilings
    # The repeated attempt id ran the guard again without appending the provider twice.
    assert state.privacy.attempted_provider_ids == ["answer-meta"]
    assert new_etag != state.etag
    assert conflict.value.status == 409
