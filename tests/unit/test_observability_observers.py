"""The observers in the layers: who reports what, once, and never changes an outcome.

The gateway's call observer sees every entry point, including answers its parsers
reject; the authorizer reports decisions, audit writes and filter mismatches; the
rate limiter reports rejections; the OPA client names the kind of each failure. All
with in-memory fakes: no HTTP, SQL or OPA.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from urllib3 import HTTPConnectionPool
from urllib3.connection import HTTPConnection
from urllib3.exceptions import (
    EmptyPoolError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from app.config import load_settings
from app.domain.decisions import Decision
from app.domain.run_context import BackfillLimits
from app.errors import Forbidden, NotFound, RateLimited
from app.http.ratelimit import RateLimiter
from app.http.routes import load_routes, load_spec
from app.observability.calls import ObservedCalls, failure_kind
from app.observability.metrics import LabelSets, Metrics
from app.observability.requests import ObservedRequests
from app.observability.tracing import Tracing
from app.opa_client import (
    OpaClient,
    OpaHttpError,
    OpaMalformed,
    OpaTimeout,
    OpaUnavailable,
    OpaUndefined,
)
from app.policy import PolicyGateway, resources
from app.policy.gateway import DECISION, RUN_CONTEXT, TRIGGER_HOLDERS
from app.usecases.authorization import Authorizer
from app.usecases.run_context import ContextLimits, ReadRunContext
from repositories.principals import Actor
from tests.unit.fakes import (
    FakeAudit,
    FakeRunContextReads,
    FakeTransport,
    FakeUnit,
    empty_facts,
)
from tests.unit.test_read_run_context import LOTSE, classify, loaded, rows

_POOL = HTTPConnectionPool("127.0.0.1", 1)
ALEX = Actor(id="alex", kind="human", status="active", is_owner=False)
ALLOW = {"allow": True, "reason": "allowed", "status": 200}
DENY = {"allow": False, "reason": "not_self", "status": 403}


@dataclass
class Recorder:
    """A call and decision observer that remembers what it was told."""

    calls: list[tuple[str, str | None]] = field(default_factory=list)
    told: list[tuple[str, ...]] = field(default_factory=list)

    @contextmanager
    def observe(self, entrypoint: str) -> Iterator[None]:
        try:
            yield
        except OpaUnavailable as error:
            self.calls.append((entrypoint, failure_kind(error)))
            raise
        self.calls.append((entrypoint, None))

    def decided(self, action: str, decision: Decision) -> None:
        self.told.append(("decided", action, decision.reason))

    def denial_audited(self, action: str, decision: Decision) -> None:
        self.told.append(("audited", action, decision.reason))

    def filter_mismatch(self, action: str, dropped: int) -> None:
        self.told.append(("mismatch", action, str(dropped)))


def _decide(gateway: PolicyGateway) -> Decision:
    return gateway.decide(
        {
            "action": "message.list",
            "actor": "alex",
            "resource": resources.channel("c"),
            "facts": empty_facts(),
        }
    )


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (OpaUnavailable("refused"), "unreachable"),
        (OpaTimeout("slow"), "timeout"),
        (OpaHttpError("500"), "http_error"),
        (OpaUndefined("undefined"), "undefined"),
        (OpaMalformed("shape"), "malformed"),
    ],
)
def test_each_failure_of_a_call_has_its_kind(error: OpaUnavailable, kind: str) -> None:
    assert failure_kind(error) == kind


def test_the_gateway_reports_every_call_with_its_entry_point() -> None:
    def fail(_input: Any) -> Any:
        raise OpaUndefined("undefined")

    recorder = Recorder()
    gateway = PolicyGateway(
        FakeTransport({DECISION: lambda _input: ALLOW, TRIGGER_HOLDERS: fail}), observer=recorder
    )

    _decide(gateway)
    with pytest.raises(OpaUndefined):
        gateway.trigger_holders({"channel_id": "c", "candidates": ["alex"], "facts": empty_facts()})

    assert recorder.calls == [(DECISION, None), (TRIGGER_HOLDERS, "undefined")]


def test_an_answer_the_parser_rejects_is_reported_as_malformed() -> None:
    recorder = Recorder()
    gateway = PolicyGateway(
        FakeTransport({DECISION: lambda _input: {"allow": "yes"}}), observer=recorder
    )

    with pytest.raises(OpaMalformed):
        _decide(gateway)

    assert recorder.calls == [(DECISION, "malformed")]


def test_observed_calls_count_latency_and_failures_and_reraise() -> None:
    metrics = Metrics(LabelSets.from_routes(load_routes(load_spec())))
    observed = ObservedCalls(metrics, None)

    with observed.observe(RUN_CONTEXT):
        pass
    with pytest.raises(OpaTimeout), observed.observe(RUN_CONTEXT):
        raise OpaTimeout("slow")

    get = metrics.registry.get_sample_value
    assert (
        get("agent_authz_opa_round_trip_duration_seconds_count", {"entrypoint": RUN_CONTEXT}) == 2
    )
    assert (
        get(
            "agent_authz_opa_round_trip_failures_total",
            {"entrypoint": RUN_CONTEXT, "kind": "timeout"},
        )
        == 1
    )


def test_observed_calls_open_a_span_per_call_marked_by_failure_kind() -> None:
    exporter = InMemorySpanExporter()
    tracing = Tracing.exporting_to(exporter, batch=False)
    observed = ObservedCalls(None, tracing.tracer("test"))

    with observed.observe(DECISION):
        pass
    with pytest.raises(OpaHttpError), observed.observe(DECISION):
        raise OpaHttpError("OPA answered 500 for data/authz/decision")

    ok, failed = exporter.get_finished_spans()
    assert ok.name == failed.name == "opa authz/decision"
    assert dict(ok.attributes or {}) == {"agent_authz.opa.entrypoint": DECISION}
    assert ok.status.is_ok
    assert (failed.attributes or {})["agent_authz.opa.failure"] == "http_error"
    assert not failed.status.is_ok
    assert failed.status.description is None
    assert failed.events == ()
    tracing.shutdown()


def test_the_authorizer_reports_decisions_and_audited_denials_in_order() -> None:
    recorder = Recorder()
    answers = iter([ALLOW, DENY])
    gateway = PolicyGateway(FakeTransport({DECISION: lambda _input: next(answers)}))
    audit = FakeAudit()
    authorizer = Authorizer(gateway, audit, observer=recorder)

    authorizer.require(ALEX, "message.list", resources.channel("c"), empty_facts())
    with pytest.raises(Forbidden):
        authorizer.require(ALEX, "message.list", resources.channel("c"), empty_facts())
    with pytest.raises(NotFound):
        authorizer.refuse(
            ALEX, "provider.attempt", resources.channel("c"), Decision(False, "not_found", 404)
        )
    authorizer.filter_mismatch("message.read", 0)

    assert recorder.told == [
        ("decided", "message.list", "allowed"),
        ("decided", "message.list", "not_self"),
        ("audited", "message.list", "not_self"),
        ("decided", "provider.attempt", "not_found"),
        ("audited", "provider.attempt", "not_found"),
    ]
    assert len(audit.denials) == 2


def test_a_failed_audit_write_is_not_counted_as_written() -> None:
    class BrokenAudit:
        def record(self, **_kwargs: Any) -> None:
            raise RuntimeError("database gone")

    recorder = Recorder()
    gateway = PolicyGateway(FakeTransport({DECISION: lambda _input: DENY}))
    authorizer = Authorizer(gateway, BrokenAudit(), observer=recorder)

    with pytest.raises(RuntimeError):
        authorizer.require(ALEX, "message.list", resources.channel("c"), empty_facts())

    assert recorder.told == [("decided", "message.list", "not_self")]


def test_a_filter_mismatch_of_the_context_read_is_reported_with_its_count() -> None:
    def drop_one(request: Any) -> Any:
        answer = classify(request)
        for readable in answer["readable"]:
            if readable["thread_id"] == "t1":
                readable["seqs"] = [seq for seq in readable["seqs"] if seq != 6]
        return answer

    recorder = Recorder()
    unit = FakeUnit(run_context=FakeRunContextReads(loaded(), rows()))
    gateway = PolicyGateway(FakeTransport({DECISION: lambda _input: ALLOW, RUN_CONTEXT: drop_one}))
    read = ReadRunContext(
        reader=lambda: unit,
        authorizer=Authorizer(gateway, FakeAudit(), observer=recorder),
        policy=gateway,
        limits=ContextLimits(
            backfill=BackfillLimits(default=50, maximum=500),
            message_max_bytes=16384,
            total_max_bytes=131072,
        ),
    )

    body = read(LOTSE, "run.context.read", "r1")

    assert [e["message_id"] for e in body["thread_context"]] == ["t7"]
    assert recorder.told == [
        ("decided", "run.context.read", "allowed"),
        ("mismatch", "message.read", "1"),
    ]


def test_the_rate_limiter_reports_each_rejection_by_class() -> None:
    rejected: list[str] = []
    settings = load_settings(environ={}).replace(**{"rate_limit.chat.per_minute": 1})
    limiter = RateLimiter(settings, on_reject=rejected.append)

    async def scenario() -> None:
        await limiter.check("chat", "alex")
        with pytest.raises(RateLimited):
            await limiter.check("chat", "alex")
        await limiter.check("chat", "sam")

    asyncio.run(scenario())
    assert rejected == ["chat"]


class _RaisingPool:
    """A urllib3 pool stand-in that raises one error."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def urlopen(self, method: str, url: str, **kwargs: Any) -> Any:
        raise self.error

    def close(self) -> None:
        return


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (ReadTimeoutError(_POOL, "/v1/data/x", "read timed out"), OpaTimeout),
        (EmptyPoolError(_POOL, "no connection in time"), OpaTimeout),
        (TimeoutError("socket"), OpaTimeout),
        (NewConnectionError(HTTPConnection("127.0.0.1", 1), "refused"), OpaUnavailable),
        (ProtocolError("connection closed"), OpaUnavailable),
    ],
)
def test_the_opa_client_names_a_timeout_apart_from_a_refusal(
    error: Exception, raised: type[OpaUnavailable]
) -> None:
    client = OpaClient("http://127.0.0.1:1", timeout=0.1, pool=_RaisingPool(error))

    with pytest.raises(OpaUnavailable) as caught:
        client.query("authz/decision", {})

    assert type(caught.value) is raised


class _AnsweringPool:
    """A urllib3 pool stand-in that answers with a status and body."""

    def __init__(self, status: int, data: bytes) -> None:
        self.status, self.data = status, data

    def urlopen(self, method: str, url: str, **kwargs: Any) -> Any:
        return self

    def close(self) -> None:
        return


@pytest.mark.parametrize(
    ("status", "data", "raised"),
    [(500, b"{}", OpaHttpError), (200, b"<html>", OpaMalformed), (200, b"{}", OpaUndefined)],
)
def test_the_opa_client_names_a_status_a_non_json_body_and_an_undefined_result(
    status: int, data: bytes, raised: type[OpaUnavailable]
) -> None:
    client = OpaClient("http://127.0.0.1:1", timeout=0.1, pool=_AnsweringPool(status, data))

    with pytest.raises(raised):
        client.query("authz/decision", {})


def test_requests_are_counted_when_they_end_and_spans_named_when_they_answer() -> None:
    routes = load_routes(load_spec())
    metrics = Metrics(LabelSets.from_routes(routes))
    exporter = InMemorySpanExporter()
    tracing = Tracing.exporting_to(exporter, batch=False)
    observer = ObservedRequests(routes, metrics, traced=True)

    with tracing.tracer("test").start_as_current_span("GET"):
        watch = observer.started("corr-1234abcd")
        watch.responding("getRunContext", 200)
        watch.finished("getRunContext", 200, 0.01)
    with tracing.tracer("test").start_as_current_span("GET"):
        unmatched = observer.started("corr-5678abcd")
        unmatched.responding("unmatched", 404)
        unmatched.finished("unmatched", 404, 0.001)

    named, unnamed = exporter.get_finished_spans()
    assert named.name == "GET /api/v1/runs/{run_id}/context"
    assert dict(named.attributes or {}) == {
        "agent_authz.correlation_id": "corr-1234abcd",
        "http.route": "/api/v1/runs/{run_id}/context",
        "agent_authz.operation": "getRunContext",
    }
    assert unnamed.name == "GET"
    assert dict(unnamed.attributes or {}) == {"agent_authz.correlation_id": "corr-5678abcd"}
    count = "agent_authz_http_request_duration_seconds_count"
    get = metrics.registry.get_sample_value
    assert get(count, {"operation": "getRunContext", "status": "200"}) == 1
    assert get(count, {"operation": "unmatched", "status": "404"}) == 1
    tracing.shutdown()
