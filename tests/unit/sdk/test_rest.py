"""The REST clients: Problem JSON to exceptions, retries only where safe."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from agent_sdk import PrincipalClient, RunnerClient
from agent_sdk.errors import (
    Forbidden,
    NotFound,
    RateLimited,
    SdkError,
    ServiceUnavailable,
    TransportFailure,
    Unauthenticated,
)

RUN = "7e3c1a52-0d4b-4f6e-9a21-5c8b3f0e1d01"
CHANNEL = "c4a00000-0000-4000-8000-000000000010"


def _problem(status: int, code: str, **extra: object) -> httpx.Response:
    body = {"type": "about:blank", "title": code, "status": status, "code": code,
            "correlation_id": "c-1", **extra}  # fmt: skip
    return httpx.Response(status, json=body, headers={"content-type": "application/problem+json"})


class Script:
    """A mock transport answering from a list, recording the requests."""

    def __init__(self, *answers: httpx.Response | Callable[[], httpx.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        return answer() if callable(answer) else answer


def _runner(script: Script) -> RunnerClient:
    return RunnerClient(
        "http://svc", "tok-runner", transport=httpx.MockTransport(script), backoff=0
    )


def _principal(script: Script) -> PrincipalClient:
    return PrincipalClient(
        "http://svc", "tok-lotse", transport=httpx.MockTransport(script), backoff=0
    )


def test_a_relay_sends_the_envelope_with_the_runner_token_and_returns_the_json() -> None:
    answer = {"call_id": "c1", "error": {"code": "not_found", "message": "Not found"}}
    script = Script(httpx.Response(200, json=answer))

    result = _runner(script).relay("sess-1", {"call_id": "c1", "list_messages": {"limit": 5}})

    assert result == answer
    request = script.requests[0]
    assert request.url.path == "/api/v1/runner/comms:relay"
    assert request.headers["authorization"] == "Bearer tok-runner"
    assert json.loads(request.content) == {
        "session_id": "sess-1",
        "call": {"call_id": "c1", "list_messages": {"limit": 5}},
    }


@pytest.mark.parametrize(
    ("status", "code", "error"),
    [
        (401, "unauthenticated", Unauthenticated),
        (404, "not_found", NotFound),
        (503, "service_unavailable", ServiceUnavailable),
    ],
)
def test_problem_answers_become_typed_exceptions(
    status: int, code: str, error: type[Exception]
) -> None:
    script = Script(*[_problem(status, code)] * 3)

    with pytest.raises(error) as raised:
        _runner(script).relay("sess-1", {"call_id": "c1", "list_messages": {}})

    assert raised.value.code == code  # type: ignore[attr-defined]
    assert "\n" not in str(raised.value)


def test_a_forbidden_answer_carries_the_policy_reason() -> None:
    script = Script(_problem(403, "forbidden", reason="not_enrolled"))

    with pytest.raises(Forbidden) as raised:
        _runner(script).enroll()

    assert raised.value.reason == "not_enrolled"


def test_a_rate_limited_answer_carries_retry_after() -> None:
    response = _problem(429, "rate_limited")
    response.headers["Retry-After"] = "7"

    with pytest.raises(RateLimited) as raised:
        _principal(Script(response)).run_context(RUN)

    assert raised.value.retry_after == 7


def test_reads_and_relays_are_retried_after_a_503() -> None:
    page = {"items": [], "has_more": False}
    script = Script(_problem(503, "service_unavailable"), httpx.Response(200, json=page))

    result = _principal(script).list_messages(CHANNEL)

    assert result.has_more is False
    assert len(script.requests) == 2


def test_a_post_without_an_idempotency_key_is_never_retried() -> None:
    script = Script(_problem(503, "service_unavailable"), httpx.Response(500))

    with pytest.raises(ServiceUnavailable):
        _principal(script).post_message(CHANNEL, "Hi")

    assert len(script.requests) == 1


def test_enrolment_is_not_retried_after_a_timeout() -> None:
    def timeout() -> httpx.Response:
        raise httpx.ReadTimeout("slow")

    script = Script(timeout, timeout)

    with pytest.raises(TransportFailure):
        _runner(script).enroll()

    assert len(script.requests) == 1


def test_a_relay_is_retried_after_a_timeout() -> None:
    def timeout() -> httpx.Response:
        raise httpx.ReadTimeout("slow")

    answer = {"call_id": "c1", "list_messages": {"items": [], "has_more": False}}
    script = Script(timeout, httpx.Response(200, json=answer))

    assert _runner(script).relay("s", {"call_id": "c1", "list_messages": {}}) == answer
    assert len(script.requests) == 2


def test_a_call_outside_the_union_fails_before_sending() -> None:
    script = Script()

    with pytest.raises(SdkError):
        _runner(script).relay("s", {"call_id": "c1", "respond_to_ask": {"answer": "yes"}})

    assert script.requests == []
