"""The guarded dispatch helper with a fake recorder: order, refusals, cache, fallback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_sdk.errors import Forbidden, TransportFailure
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


class FakeRecorder:
    """Records attempts into a shared event log; refuses the providers it is told to."""

    def __init__(self, events: list[str], refuse: frozenset[str] = frozenset()) -> None:
        self.events = events
        self.refuse = refuse
        self.attempt_ids: list[str] = []

    def record_attempt(self, run_id: str, *, attempt_id: str, provider_id: str, kind: str) -> None:
        self.attempt_ids.append(attempt_id)
        if provider_id in self.refuse:
            self.events.append(f"refused {kind} {provider_id}")
            raise Forbidden(403, {"code": "forbidden", "reason": "unknown_provider"})
        self.events.append(f"recorded {kind} {provider_id} for {run_id}")


class FakeAdapter:
    """A chat or tool adapter writing into the same event log."""

    def __init__(self, events: list[str], fail: frozenset[str] = frozenset()) -> None:
        self.events = events
        self.fail = fail

    def __call__(self, provider_id: str, request: Any) -> str:
        self.events.append(f"called {provider_id}")
        if provider_id in self.fail:
            raise TimeoutError(provider_id)
        return f"reply of {provider_id} to {request}"


def test_a_chat_call_of_a_run_is_recorded_before_the_adapter_runs() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))

    reply = dispatcher.chat(FakeAdapter(events), "hi", provider_id="eu", run_id="r1")

    assert reply == "reply of eu to hi"
    assert events == ["recorded chat eu for r1", "called eu"]


def test_a_tool_call_of_a_run_is_recorded_before_the_adapter_runs() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))

    dispatcher.tool(FakeAdapter(events), "search", provider_id="tools", run_id="r1")

    assert events == ["recorded tool tools for r1", "called tools"]


def test_a_refusal_raises_and_the_adapter_is_never_called() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events, refuse=frozenset({"shadow"})))

    with pytest.raises(AttemptRefused) as raised:
        dispatcher.chat(FakeAdapter(events), "hi", provider_id="shadow", run_id="r1")

    assert events == ["refused chat shadow"]
    assert isinstance(raised.value.__cause__, Forbidden)
    assert (raised.value.provider_id, raised.value.kind) == ("shadow", "chat")


def test_any_recorder_failure_is_a_refusal() -> None:
    class Unreachable:
        def record_attempt(self, run_id: str, **_: str) -> None:
            raise ConnectionError("no route")

    events: list[str] = []
    with pytest.raises(AttemptRefused):
        GuardedDispatcher(Unreachable()).chat(
            FakeAdapter(events), "hi", provider_id="eu", run_id="r"
        )
    assert events == []


def test_a_failed_call_stays_recorded_and_raises() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))

    with pytest.raises(TimeoutError):
        dispatcher.chat(
            FakeAdapter(events, fail=frozenset({"eu"})), "hi", provider_id="eu", run_id="r1"
        )

    assert events == ["recorded chat eu for r1", "called eu"]


def test_every_fallback_is_recorded_before_its_call() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))
    adapter = FakeAdapter(events, fail=frozenset({"a", "b"}))

    reply = dispatcher.with_fallback(
        adapter, "hi", kind=AttemptKind.CHAT, providers=["a", "b", "c"], run_id="r1"
    )

    assert reply == "reply of c to hi"
    assert events == [
        "recorded chat a for r1",
        "called a",
        "recorded chat b for r1",
        "called b",
        "recorded chat c for r1",
        "called c",
    ]


def test_routing_decided_after_enumeration_is_recorded_as_called() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))

    def route() -> Iterator[str]:
        yield "primary"
        events.append("router switched")  # a criterion changed after the first failure
        yield "secondary"

    dispatcher.with_fallback(
        FakeAdapter(events, fail=frozenset({"primary"})),
        "hi",
        kind=AttemptKind.TOOL,
        providers=route(),
        run_id="r1",
    )

    assert events == [
        "recorded tool primary for r1",
        "called primary",
        "router switched",
        "recorded tool secondary for r1",
        "called secondary",
    ]


def test_a_refusal_stops_the_fallback_chain() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events, refuse=frozenset({"b"})))

    with pytest.raises(AttemptRefused):
        dispatcher.with_fallback(
            FakeAdapter(events, fail=frozenset({"a"})),
            "hi",
            kind=AttemptKind.CHAT,
            providers=["a", "b", "c"],
            run_id="r1",
        )

    assert events == ["recorded chat a for r1", "called a", "refused chat b"]


def test_no_provider_left() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher(FakeRecorder(events))

    with pytest.raises(NoProviderLeft):
        dispatcher.with_fallback(FakeAdapter(events), "hi", kind=AttemptKind.CHAT, providers=[])


def test_a_retry_keeps_its_attempt_id_and_new_attempts_get_new_ones() -> None:
    events: list[str] = []
    recorder = FakeRecorder(events)
    dispatcher = GuardedDispatcher(recorder)
    adapter = FakeAdapter(events)

    dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1", attempt_id="a-1")
    dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1", attempt_id="a-1")
    dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1")
    dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1")

    assert recorder.attempt_ids[:2] == ["a-1", "a-1"]
    assert len(set(recorder.attempt_ids[2:])) == 2
    assert "a-1" not in recorder.attempt_ids[2:]


def test_without_a_recorder_run_calls_are_refused_and_other_calls_served() -> None:
    events: list[str] = []
    dispatcher = GuardedDispatcher()
    adapter = FakeAdapter(events)

    with pytest.raises(GuardMissing):
        dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1")
    with pytest.raises(GuardMissing):
        dispatcher.with_fallback(
            adapter, "hi", kind=AttemptKind.TOOL, providers=["eu"], run_id="r1"
        )
    assert dispatcher.chat(adapter, "hi", provider_id="eu") == "reply of eu to hi"

    assert events == ["called eu"]


def test_run_calls_bypass_the_cache_and_other_calls_are_replayed() -> None:
    events: list[str] = []
    cache = MemoryResponseCache()
    dispatcher = GuardedDispatcher(FakeRecorder(events), cache=cache)
    adapter = FakeAdapter(events)

    for _ in range(2):
        dispatcher.chat(adapter, "hi", provider_id="eu", run_id="r1", idempotency_key="same")
    for _ in range(2):
        dispatcher.chat(adapter, "hi", provider_id="eu", idempotency_key="same")

    assert events == [
        "recorded chat eu for r1",
        "called eu",
        "recorded chat eu for r1",
        "called eu",
        "called eu",  # the non-run call, once; its repeat is replayed from the cache
    ]
    assert cache.get("same") == (True, "reply of eu to hi")


RUN = "7e3c1a52-0d4b-4f6e-9a21-5c8b3f0e1d01"


def test_the_production_factory_wires_the_principal_client_as_recorder() -> None:
    dispatcher = build_dispatcher("http://127.0.0.1:9", "tok-lotse")

    assert isinstance(dispatcher.recorder, PrincipalClient)


def test_an_unreachable_service_is_a_refusal_by_the_principal_client() -> None:
    def unreachable(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        raise httpx.ConnectError("connection refused", request=request)

    sent: list[httpx.Request] = []
    events: list[str] = []
    client = PrincipalClient(
        "http://127.0.0.1:9", "tok-lotse", transport=httpx.MockTransport(unreachable), backoff=0
    )
    dispatcher = GuardedDispatcher(client)

    with pytest.raises(AttemptRefused) as raised:
        dispatcher.chat(FakeAdapter(events), "hi", provider_id="eu", run_id=RUN, attempt_id="a-1")

    assert isinstance(raised.value.__cause__, TransportFailure)
    assert events == []
    # Retried (an attempt is idempotent by its id), always with the same attempt id.
    assert len(sent) == 3
    assert [json.loads(request.content) for request in sent] == [
        {"attempt_id": "a-1", "provider_id": "eu", "kind": "chat"}
    ] * 3


def test_a_run_id_that_is_not_a_uuid_is_refused_before_anything_is_sent() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    sent: list[httpx.Request] = []
    events: list[str] = []
    client = PrincipalClient("http://svc", "tok-lotse", transport=httpx.MockTransport(answer))

    with pytest.raises(AttemptRefused):
        GuardedDispatcher(client).chat(FakeAdapter(events), "hi", provider_id="eu", run_id="r1")

    assert sent == []
    assert events == []
