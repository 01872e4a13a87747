"""Tracing configuration from ``OTEL_*`` and the allow-list every exported span passes."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode

from app.config import load_settings
from app.main import create_app
from app.observability.tracing import (
    ALLOWED_ATTRIBUTES,
    SERVICE,
    ScrubbingExporter,
    Tracing,
    TracingConfigError,
    tracing_exporters,
    tracing_from_environment,
)

ENDPOINT = "http://127.0.0.1:4318"


@pytest.mark.parametrize(
    ("environ", "exporters"),
    [
        ({}, ()),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, ("otlp",)),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{ENDPOINT}/v1/traces"}, ("otlp",)),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, ("otlp",)),
        ({"OTEL_TRACES_EXPORTER": "console"}, ("console",)),
        ({"OTEL_TRACES_EXPORTER": " otlp , console,otlp"}, ("otlp", "console")),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, ()),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, ()),
        ({"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, ("otlp",)),
        (
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
            ("otlp",),
        ),
    ],
)
def test_tracing_is_off_unless_the_otel_variables_ask_for_it(
    environ: dict[str, str], exporters: tuple[str, ...]
) -> None:
    assert tracing_exporters(environ) == exporters


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "grpc"),
        (
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT,
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            },
            "http/json",
        ),
    ],
)
def test_an_exporter_or_protocol_the_service_does_not_ship_is_refused(
    environ: dict[str, str], named: str
) -> None:
    with pytest.raises(TracingConfigError, match=named):
        tracing_exporters(environ)


def test_off_builds_nothing_and_on_names_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    assert tracing_from_environment({}) is None

    tracing = tracing_from_environment({"OTEL_TRACES_EXPORTER": "console"})

    assert tracing is not None
    assert tracing.provider.resource.attributes["service.name"] == SERVICE
    tracing.shutdown()


def test_the_standard_service_name_variable_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "authz-eu-1")

    tracing = Tracing.exporting_to(InMemorySpanExporter(), batch=False)

    assert tracing.provider.resource.attributes["service.name"] == "authz-eu-1"
    tracing.shutdown()


def _span(scope: str, kind: SpanKind, attributes: Mapping[str, Any], **extra: Any) -> ReadableSpan:
    return ReadableSpan(
        name="span",
        context=SpanContext(trace_id=1, span_id=2, is_remote=False),
        resource=Resource({}),
        attributes=attributes,
        kind=kind,
        instrumentation_scope=InstrumentationScope(scope),
        **extra,
    )


def _exported(span: ReadableSpan) -> ReadableSpan:
    inner = InMemorySpanExporter()
    ScrubbingExporter(inner).export([span])
    (exported,) = inner.get_finished_spans()
    return exported


def test_only_allow_listed_attributes_leave() -> None:
    span = _span(
        "opentelemetry.instrumentation.asgi",
        SpanKind.SERVER,
        {
            "http.method": "GET",
            "http.route": "/api/v1/runs/{run_id}/context",
            "http.status_code": 200,
            "http.target": "/api/v1/runs/alex-wrote-this/context",
            "http.url": "http://127.0.0.1/api/v1/runs/alex-wrote-this/context?q=secret",
            "http.user_agent": "canary agent",
            "http.server_name": "evil.example.com",
            "net.peer.ip": "192.0.2.7",
            "http.request.header.authorization": ("Bearer tok-alex",),
            "agent_authz.correlation_id": "corr-1234abcd",
        },
    )

    assert dict(_exported(span).attributes or {}) == {
        "http.method": "GET",
        "http.route": "/api/v1/runs/{run_id}/context",
        "http.status_code": 200,
        "agent_authz.correlation_id": "corr-1234abcd",
    }


def test_the_opa_calls_keep_their_url_and_nothing_else_does() -> None:
    url = {"http.url": "http://127.0.0.1:8181/v1/data/authz/decision", "http.method": "POST"}

    opa_call = _exported(_span("opentelemetry.instrumentation.urllib3", SpanKind.CLIENT, url))
    other = _exported(_span("opentelemetry.instrumentation.sqlalchemy", SpanKind.CLIENT, url))

    assert dict(opa_call.attributes or {}) == url
    assert dict(other.attributes or {}) == {"http.method": "POST"}


def test_exceptions_leave_by_type_and_statuses_without_their_text() -> None:
    span = _span(
        "opentelemetry.instrumentation.sqlalchemy",
        SpanKind.CLIENT,
        {"db.statement": "SELECT 1 WHERE handle = %(handle)s"},
        status=Status(StatusCode.ERROR, "duplicate key: Key (handle)=(alex) already exists"),
        events=[
            Event(
                "exception",
                {
                    "exception.type": "IntegrityError",
                    "exception.message": "Key (handle)=(alex) already exists",
                    "exception.stacktrace": "Traceback ... alex",
                },
            ),
            Event("log", {"message": "alex"}),
        ],
    )

    exported = _exported(span)

    assert exported.status.status_code is StatusCode.ERROR
    assert exported.status.description is None
    assert [(e.name, dict(e.attributes or {})) for e in exported.events] == [
        ("exception", {"exception.type": "IntegrityError"})
    ]
    assert dict(exported.attributes or {}) == {"db.statement": "SELECT 1 WHERE handle = %(handle)s"}


def test_no_request_value_is_on_the_allow_list() -> None:
    request_values = {
        "http.target",
        "http.url",
        "url.full",
        "url.path",
        "url.query",
        "http.user_agent",
        "user_agent.original",
        "http.server_name",
        "net.peer.ip",
        "client.address",
    }

    assert not request_values & ALLOWED_ATTRIBUTES


def test_a_stopping_process_exports_its_batched_spans_at_lifespan_shutdown() -> None:
    exporter = InMemorySpanExporter()
    tracing = Tracing.exporting_to(exporter)
    settings = load_settings(environ={}).replace(
        **{"database.url": "postgresql://nobody@127.0.0.1:1/none", "opa.url": "http://127.0.0.1:1"}
    )
    app = create_app(settings, tracing=tracing)
    with tracing.tracer("test").start_as_current_span("batched"):
        pass
    assert exporter.get_finished_spans() == ()
    inbox: list[dict[str, Any]] = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[str] = []

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(message["type"])

    try:
        asyncio.run(app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    finally:
        app.services.close()
        tracing.shutdown()

    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert [span.name for span in exporter.get_finished_spans()] == ["batched"]
