"""The REST clients: Problem JSON to exceptions, retries only where safe, run privacy."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from agent_sdk import PrincipalClient, RunnerClient
from agent_sdk.client.types import Unset
from agent_sdk.errors import (
    Conflict,
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
    answer = {
        "call_id": "c1",
        "error": {"code": "not_found", "message": "Not found"},
        "acting_for": {"mode": "own"},
    }
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

    answer = {
        "call_id": "c1",
        "list_messages": {"items": [], "has_more": False},
        "acting_for": {"mode": "own"},
    }
    script = Script(timeout, httpx.Response(200, json=answer))

    assert _runner(script).relay("s", {"call_id": "c1", "list_messages": {}}) == answer
    assert len(script.requests) == 2


def test_a_call_outside_the_union_fails_before_sending() -> None:
    script = Script()

    with pytest.raises(SdkError):
        _runner(script).relay("s", {"call_id": "c1", "respond_to_ask": {"answer": "yes"}})

    assert script.requests == []


# ------------------------------------------------------------ run privacy operations

ATTEMPT_GO = {
    "outcome": "go",
    "ceilings": {
        "audit_content": {"level": "metadata", "explicit": True},
        "background_answer": {"level": "metadata", "explicit": False},
    },
}


def _timeout() -> httpx.Response:
    raise httpx.ReadTimeout("slow")


def test_an_attempt_is_recorded_with_the_agent_token_and_answers_go() -> None:
    script = Script(httpx.Response(200, json=ATTEMPT_GO))

    go = _principal(script).record_attempt(
        RUN, attempt_id="a-1", provider_id="eu-hosted", kind="chat"
    )

    assert go.outcome == "go"
    assert (go.ceilings.audit_content.level, go.ceilings.audit_content.explicit) == (
        "metadata",
        True,
    )
    request = script.requests[0]
    assert (request.method, request.url.path) == ("POST", f"/api/v1/runs/{RUN}/provider-attempts")
    assert request.headers["authorization"] == "Bearer tok-lotse"
    assert json.loads(request.content) == {
        "attempt_id": "a-1",
        "provider_id": "eu-hosted",
        "kind": "chat",
    }


def test_an_attempt_is_retried_with_the_same_attempt_id() -> None:
    script = Script(
        _problem(503, "service_unavailable"), _timeout, httpx.Response(200, json=ATTEMPT_GO)
    )

    _principal(script).record_attempt(RUN, attempt_id="a-1", provider_id="eu", kind="tool")

    assert len(script.requests) == 3
    assert {json.loads(request.content)["attempt_id"] for request in script.requests} == {"a-1"}


def test_an_unknown_provider_is_forbidden_with_its_reason_and_not_retried() -> None:
    script = Script(_problem(403, "forbidden", reason="unknown_provider"))

    with pytest.raises(Forbidden) as raised:
        _principal(script).record_attempt(RUN, attempt_id="a-1", provider_id="x", kind="chat")

    assert (raised.value.status, raised.value.reason) == (403, "unknown_provider")
    assert len(script.requests) == 1


def test_an_outcome_outside_the_contract_is_not_a_go() -> None:
    script = Script(httpx.Response(200, json={**ATTEMPT_GO, "outcome": "maybe"}))

    with pytest.raises(TransportFailure):
        _principal(script).record_attempt(RUN, attempt_id="a-1", provider_id="x", kind="chat")


@pytest.mark.parametrize(
    "body",
    [b"<html>bad gateway</html>", b'{"status": 503}'],
    ids=["not-json", "not-a-problem"],
)
def test_a_body_the_contract_does_not_allow_is_a_transport_failure(body: bytes) -> None:
    script = Script(httpx.Response(503, content=body))

    with pytest.raises(TransportFailure):
        _principal(script).run_context(RUN)

    assert len(script.requests) == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(
            lambda c: c.record_attempt("r1", attempt_id="a", provider_id="p", kind="chat"),
            "run_id is not a UUID",
            id="run-id",
        ),
        pytest.param(
            lambda c: c.record_attempt(RUN, attempt_id="a", provider_id="p", kind="fax"),
            "not an attempt kind",
            id="attempt-kind",
        ),
        pytest.param(
            lambda c: c.append_step(RUN, kind="gossip"), "not in the contract", id="step-kind"
        ),
        pytest.param(
            lambda c: c.append_step(RUN, kind="note", metadata={"modell": "m-1"}),
            "not in the contract",
            id="metadata-key",
        ),
        pytest.param(lambda c: c.run_context("r1"), "run_id is not a UUID", id="context-run-id"),
    ],
)
def test_arguments_outside_the_contract_fail_before_sending(
    call: Callable[[PrincipalClient], object], message: str
) -> None:
    script = Script()

    with pytest.raises(SdkError, match=message):
        call(_principal(script))

    assert script.requests == []


def test_a_step_sends_only_the_parts_given_and_is_never_retried() -> None:
    script = Script(_problem(503, "service_unavailable"))

    with pytest.raises(ServiceUnavailable):
        _principal(script).append_step(RUN, kind="chat_request", metadata={"model": "m-1"})

    assert len(script.requests) == 1
    assert script.requests[0].url.path == f"/api/v1/runs/{RUN}/steps"
    assert json.loads(script.requests[0].content) == {
        "kind": "chat_request",
        "metadata": {"model": "m-1"},
    }


def test_a_stored_step_names_the_parts_kept() -> None:
    stored = {"seq": 3, "kept": ["kind", "metadata"], "ceilings": ATTEMPT_GO["ceilings"]}
    script = Script(httpx.Response(201, json=stored))

    step = _principal(script).append_step(RUN, kind="note", content="c", metadata={})

    assert (step.seq, step.kept) == (3, ["kind", "metadata"])
    assert json.loads(script.requests[0].content) == {
        "kind": "note",
        "metadata": {},
        "content": "c",
    }


def test_the_answer_is_a_put_retried_after_a_timeout() -> None:
    answer = {"stored": False, "ceilings": ATTEMPT_GO["ceilings"]}
    script = Script(_timeout, httpx.Response(200, json=answer))

    result = _principal(script).put_answer(RUN, "An answer.")

    assert result.stored is False
    assert [request.method for request in script.requests] == ["PUT", "PUT"]
    assert json.loads(script.requests[1].content) == {"answer_md": "An answer."}


def test_the_privacy_read_returns_the_etag_and_leaves_unset_ceilings_unset() -> None:
    script = Script(
        httpx.Response(200, json={"attempted_provider_ids": []}, headers={"ETag": '"4"'})
    )

    state = _principal(script).run_privacy(RUN)

    assert state.etag == '"4"'
    assert state.privacy.attempted_provider_ids == []
    assert isinstance(state.privacy.ceilings, Unset)
    assert script.requests[0].url.path == f"/api/v1/runs/{RUN}/privacy"


def test_a_privacy_read_without_an_etag_is_a_transport_failure() -> None:
    script = Script(httpx.Response(200, json={"attempted_provider_ids": ["eu"]}))

    with pytest.raises(TransportFailure):
        _principal(script).run_privacy(RUN)


def test_a_rotation_sends_if_match_and_returns_the_new_etag() -> None:
    script = Script(httpx.Response(200, json={"envelope_version": 5}, headers={"ETag": '"5"'}))

    etag = _principal(script).rotate_envelope(RUN, etag='"4"', sealed_envelope="a2V5")

    assert etag == '"5"'
    request = script.requests[0]
    assert request.url.path == f"/api/v1/runs/{RUN}/envelope:rotate"
    assert request.headers["if-match"] == '"4"'
    assert json.loads(request.content) == {"sealed_envelope": "a2V5"}


def test_a_rotation_is_never_retried_and_a_moved_version_is_a_conflict() -> None:
    with pytest.raises(TransportFailure):
        _principal(Script(_timeout)).rotate_envelope(RUN, etag='"4"', sealed_envelope="a2V5")

    script = Script(_problem(409, "conflict"))
    with pytest.raises(Conflict):
        _principal(script).rotate_envelope(RUN, etag='"4"', sealed_envelope="a2V5")
    assert len(script.requests) == 1


# ------------------------------------------------------------ binding a run (runner)


def test_bind_run_puts_the_run_id_with_the_runner_token() -> None:
    session = {"container_name": "ws-1", "session_id": "sess-1", "state": "bound", "run_id": RUN}
    script = Script(httpx.Response(200, json=session))

    bound = _runner(script).bind_run("sess-1", RUN)

    assert str(bound.run_id) == RUN
    request = script.requests[0]
    assert (request.method, request.url.path) == ("PUT", "/api/v1/runner/sessions/sess-1/run")
    assert request.headers["authorization"] == "Bearer tok-runner"
    assert json.loads(request.content) == {"run_id": RUN}


def test_bind_run_refuses_a_run_id_that_is_not_a_uuid_before_sending() -> None:
    script = Script()

    with pytest.raises(SdkError):
        _runner(script).bind_run("sess-1", "r1")

    assert script.requests == []


def test_bind_run_of_an_unknown_or_ended_run_raises_not_found() -> None:
    script = Script(_problem(404, "not_found"))

    with pytest.raises(NotFound):
        _runner(script).bind_run("sess-1", RUN)


def test_unbind_run_deletes_and_is_retried_like_a_read() -> None:
    script = Script(_problem(503, "service_unavailable"), httpx.Response(204))

    _runner(script).unbind_run("sess-1")

    assert [(r.method, r.url.path) for r in script.requests] == [
        ("DELETE", "/api/v1/runner/sessions/sess-1/run"),
        ("DELETE", "/api/v1/runner/sessions/sess-1/run"),
    ]


def test_the_session_relay_binds_and_unbinds_its_own_session() -> None:
    from agent_sdk import SessionRelay

    session = {"container_name": "ws-1", "session_id": "sess-9", "state": "bound", "run_id": RUN}
    script = Script(httpx.Response(200, json=session), httpx.Response(204))
    relay = SessionRelay(_runner(script), "sess-9")

    relay.bind_run(RUN)
    relay.unbind_run()

    assert [(r.method, r.url.path) for r in script.requests] == [
        ("PUT", "/api/v1/runner/sessions/sess-9/run"),
        ("DELETE", "/api/v1/runner/sessions/sess-9/run"),
    ]
