"""OpenTelemetry traces of a context read: one request span, its SQL and OPA children.

The app runs with tracing on and an in-memory exporter (behind the same scrubbing
exporter production uses), against the real PostgreSQL and a real OPA started with
the deploy configuration, whose distributed tracing sends OPA's own spans to a
stand-in OTLP collector. The test client's own HTTP calls are kept out of the trace
(``suppress_http_instrumentation``) so that the request span is a root or the child
of the ``traceparent`` a test sends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import requests
from opentelemetry.instrumentation.utils import suppress_http_instrumentation
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from app.observability.tracing import Tracing
from tests.conftest import RunningService
from tests.integration.observability.test_metrics import _world
from tests.support.otlp import OtlpReceiver, ReceivedSpan
from tests.support.services import OpaServer
from tests.support.world import load

pytestmark = pytest.mark.integration

ROUTE = "/api/v1/runs/{run_id}/context"
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


@pytest.fixture
def traced(
    make_service: Callable[..., RunningService], database_url: str, traced_opa: OpaServer
) -> tuple[RunningService, InMemorySpanExporter, dict[str, str]]:
    """The app traced into memory, in front of the traced OPA, with the world loaded."""
    ids = load(database_url, _world())
    exporter = InMemorySpanExporter()
    service = make_service(
        opa_url=traced_opa.url, tracing=Tracing.exporting_to(exporter, batch=False)
    )
    return service, exporter, ids


def _get(service: RunningService, path: str, token: str, **headers: str) -> requests.Response:
    with suppress_http_instrumentation():
        return service.client(token).get(path, headers=headers)


def _hex(value: int, width: int) -> str:
    return f"{value:0{width}x}"


def _request_span(exporter: InMemorySpanExporter) -> ReadableSpan:
    """The one SERVER span exported so far (it ends as the answer's last byte leaves)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        servers = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.SERVER]
        if servers:
            assert len(servers) == 1, [s.name for s in servers]
            return servers[0]
        time.sleep(0.005)
    raise AssertionError("no request span was exported")


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


def test_a_context_read_is_one_request_span_with_its_sql_and_opa_children(
    traced: tuple[RunningService, InMemorySpanExporter, dict[str, str]],
    collector: OtlpReceiver,
) -> None:
    service, exporter, ids = traced
    statements_before = service.sql_statements

    response = _get(service, f"/api/v1/runs/{ids['r1']}/context", "tok-lotse")

    assert response.status_code == 200
    request = _request_span(exporter)
    spans = list(exporter.get_finished_spans())
    assert request.context is not None
    trace_id = request.context.trace_id
    assert {s.context.trace_id for s in spans if s.context is not None} == {trace_id}
    assert request.parent is None
    assert request.name == f"GET {ROUTE}"
    attributes = dict(request.attributes or {})
    assert attributes["http.route"] == ROUTE
    assert attributes["http.status_code"] == 200
    assert attributes["agent_authz.operation"] == "getRunContext"
    assert attributes["agent_authz.correlation_id"] == response.headers["X-Correlation-Id"]

    children = _children(spans, request)
    sql = [s for s in children if s.kind is SpanKind.CLIENT]
    opa = [s for s in children if s.name.startswith("opa ")]
    assert {s.kind for s in children} == {SpanKind.CLIENT, SpanKind.INTERNAL}
    assert len(children) == len(sql) + len(opa)
    # One span per SQL statement the request sent, each with its parameterized text.
    assert len(sql) == service.sql_statements - statements_before >= 4
    for span in sql:
        statement = str((span.attributes or {})["db.statement"])
        assert statement.split()[0].upper() in {"SELECT", "WITH", "EXECUTE", "PREPARE"}
        assert (span.attributes or {})["db.system"] == "postgresql"
    # Two OPA round trips, in order, each one HTTP call to its entry point.
    assert [s.name for s in sorted(opa, key=lambda s: s.start_time or 0)] == [
        "opa authz/decision",
        "opa runcontext/evaluate",
    ]
    for span in opa:
        entrypoint = (span.attributes or {})["agent_authz.opa.entrypoint"]
        (http_call,) = _children(spans, span)
        assert http_call.kind is SpanKind.CLIENT
        url = str((http_call.attributes or {})["http.url"])
        # The gateway asks for OPA's provenance: the policy revision of each answer.
        assert url.endswith(f"/v1/data/{entrypoint!s}?provenance=true")

    # OPA's own spans join the same trace, under the app's HTTP calls to it.
    calls = {
        _hex(c.context.span_id, 16)
        for s in opa
        for c in _children(spans, s)
        if c.context is not None
    }
    received = collector.wait_for(
        lambda got: len([r for r in got if r.trace_id == _hex(trace_id, 32)]) >= 2
    )
    from_opa = [r for r in received if r.trace_id == _hex(trace_id, 32)]
    assert {r.service for r in from_opa} == {"opa"}
    assert {r.parent_span_id for r in from_opa if r.kind == "SERVER"} == calls


def test_the_callers_w3c_trace_context_is_joined(
    traced: tuple[RunningService, InMemorySpanExporter, dict[str, str]],
    collector: OtlpReceiver,
) -> None:
    service, exporter, ids = traced

    response = _get(
        service,
        f"/api/v1/runs/{ids['r1']}/context",
        "tok-lotse",
        traceparent=f"00-{CALLER_TRACE}-{CALLER_SPAN}-01",
    )

    assert response.status_code == 200
    request = _request_span(exporter)
    assert request.context is not None
    assert request.parent is not None
    assert _hex(request.context.trace_id, 32) == CALLER_TRACE
    assert _hex(request.parent.span_id, 16) == CALLER_SPAN
    assert request.parent.is_remote
    received: list[ReceivedSpan] = collector.wait_for(
        lambda got: any(r.trace_id == CALLER_TRACE for r in got)
    )
    assert {r.service for r in received if r.trace_id == CALLER_TRACE} == {"opa"}


def test_an_opa_outage_marks_the_call_and_the_request_failed(
    make_service: Callable[..., RunningService], database_url: str
) -> None:
    ids = load(database_url, _world())
    exporter = InMemorySpanExporter()
    # Nothing listens on port 9 of the loopback: every OPA call is refused.
    service = make_service(
        opa_url="http://127.0.0.1:9", tracing=Tracing.exporting_to(exporter, batch=False)
    )

    response = _get(service, f"/api/v1/runs/{ids['r1']}/context", "tok-lotse")

    assert response.status_code == 503
    request = _request_span(exporter)
    spans = list(exporter.get_finished_spans())
    (call,) = [s for s in spans if s.name == "opa authz/decision"]
    assert (call.attributes or {})["agent_authz.opa.failure"] == "unreachable"
    assert not call.status.is_ok
    assert not request.status.is_ok
    assert (request.attributes or {})["http.status_code"] == 503


def test_tracing_off_is_the_default(make_service: Callable[..., Any]) -> None:
    service = make_service()

    assert service.app.services.tracing is None
