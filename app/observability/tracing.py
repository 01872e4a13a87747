"""OpenTelemetry traces: the SDK, its instrumentations, and what a span may carry.

Off unless the standard ``OTEL_*`` variables ask for it (:func:`tracing_from_environment`,
decision O10). Every exporter is wrapped in :class:`ScrubbingExporter`, which writes
only allow-listed attributes, exception events by type and no status texts, so no
request value, content, handle or token reaches a trace sink (decision O11). The
spans of a request: ``docs/operations.md``, "Traces"; ADR 0015.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
from opentelemetry.instrumentation.urllib3 import URLLib3Instrumentor
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace import Status, Tracer
from sqlalchemy import Engine
from starlette.types import ASGIApp

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "SERVICE",
    "ScrubbingExporter",
    "Tracing",
    "TracingConfigError",
    "tracing_from_environment",
]

SERVICE = "agent-authz"

# Attribute keys a span may carry, old and new semantic-convention names alike. Request
# values are absent on purpose: no http.target, http.url, url.path, url.query,
# http.user_agent, http.server_name (the client's Host header) or header attributes.
ALLOWED_ATTRIBUTES = frozenset(
    {
        # the request span (ASGI) and the OPA calls (urllib3)
        "http.method",
        "http.request.method",
        "http.scheme",
        "url.scheme",
        "http.flavor",
        "network.protocol.version",
        "http.status_code",
        "http.response.status_code",
        "http.route",
        "http.host",
        "net.host.port",
        "server.address",
        "server.port",
        "net.peer.name",
        "net.peer.port",
        "error.type",
        # SQL statements (the text is parameterized: values are bound, never inlined)
        "db.system",
        "db.system.name",
        "db.name",
        "db.namespace",
        "db.user",
        "db.statement",
        "db.query.text",
        "db.operation",
        "db.operation.name",
        "net.transport",
        "network.transport",
        # this service's own (app.observability.requests, app.observability.calls)
        "agent_authz.correlation_id",
        "agent_authz.operation",
        "agent_authz.opa.entrypoint",
        "agent_authz.opa.failure",
    }
)
# The OPA calls' URL is the sidecar's address and the entry point's path, no value.
_OPA_CALL_ATTRIBUTES = ALLOWED_ATTRIBUTES | frozenset({"http.url", "url.full"})
# An exception event keeps its type only: messages can quote values.
_EXCEPTION_ATTRIBUTES = frozenset({"exception.type"})


class TracingConfigError(ValueError):
    """The ``OTEL_*`` variables ask for something this service does not ship."""


def _scrubbed_attributes(
    attributes: Mapping[str, Any] | None, allowed: frozenset[str]
) -> dict[str, Any]:
    return {key: value for key, value in (attributes or {}).items() if key in allowed}


def _scrub(span: ReadableSpan) -> ReadableSpan:
    scope = span.instrumentation_scope
    opa_call = span.kind is trace.SpanKind.CLIENT and scope is not None and "urllib3" in scope.name
    allowed = _OPA_CALL_ATTRIBUTES if opa_call else ALLOWED_ATTRIBUTES
    events = [
        Event(
            event.name,
            _scrubbed_attributes(event.attributes, _EXCEPTION_ATTRIBUTES),
            event.timestamp,
        )
        for event in span.events
        if event.name == "exception"
    ]
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=_scrubbed_attributes(span.attributes, allowed),
        events=events,
        links=(),
        kind=span.kind,
        # The description may quote a database error (which can quote a value): the
        # code alone says that the span failed.
        status=Status(span.status.status_code),
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class ScrubbingExporter(SpanExporter):
    """Export spans through ``inner`` with only allow-listed data (module docstring).

    Args:
        inner: the real exporter (OTLP, console, or an in-memory one in tests).
    """

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Export the scrubbed copies of ``spans``."""
        return self.inner.export([_scrub(span) for span in spans])

    def shutdown(self) -> None:
        """Shut the inner exporter down."""
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Flush the inner exporter."""
        return self.inner.force_flush(timeout_millis)


def _resource() -> Resource:
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win; our name is the fallback.
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: SERVICE}))
    return resource


@dataclass(frozen=True, slots=True)
class Tracing:
    """A tracer provider of this process and the instrumentations that feed it.

    Build one with :func:`tracing_from_environment` (production) or :meth:`exporting_to`
    (tests and the benchmark, e.g. with an in-memory exporter).
    """

    provider: TracerProvider

    @classmethod
    def exporting_to(cls, exporter: SpanExporter, *, batch: bool = True) -> Tracing:
        """Tracing whose spans go, scrubbed, to ``exporter``.

        ``batch`` exports from a background thread as production does; without it each
        span is exported when it ends (tests read them at once).
        """
        provider = TracerProvider(resource=_resource())
        scrubbed = ScrubbingExporter(exporter)
        provider.add_span_processor(
            BatchSpanProcessor(scrubbed) if batch else SimpleSpanProcessor(scrubbed)
        )
        return cls(provider)

    def tracer(self, name: str) -> Tracer:
        """A tracer of this provider for the module ``name``."""
        return self.provider.get_tracer(name)

    def instrument_asgi(self, app: ASGIApp) -> ASGIApp:
        """``app`` inside the ASGI instrumentation: one SERVER span per request.

        The span is named by the method alone until the operation is known
        (:mod:`app.observability.requests` renames it); the per-message receive and
        send spans are left out.
        """
        traced: ASGIApp = OpenTelemetryMiddleware(
            app,
            default_span_details=_span_details,
            tracer_provider=self.provider,
            meter_provider=NoOpMeterProvider(),
            exclude_spans=["receive", "send"],
        )
        return traced

    def instrument_engine(self, engine: Engine) -> None:
        """One CLIENT span per SQL statement of ``engine`` (statement text, no values).

        The instrumentation's engine tracer directly, rather than the instrumentor,
        which would also wrap ``create_engine`` for every engine of the process.
        """
        meter = NoOpMeterProvider().get_meter(__name__)
        EngineTracer(  # type: ignore[no-untyped-call]  # the instrumentation is untyped
            self.tracer("opentelemetry.instrumentation.sqlalchemy"),
            engine,
            meter.create_up_down_counter("db.client.connections.usage"),
        )

    def instrument_transport(self) -> None:
        """Trace every urllib3 request of the process (the OPA client's calls).

        The instrumentation patches urllib3 itself, so it is process-wide; it injects
        ``traceparent`` into each call. Idempotent.
        """
        instrumentor = URLLib3Instrumentor()
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=self.provider)

    def shutdown(self) -> None:
        """Stop tracing urllib3 and flush and stop the provider (idempotent)."""
        instrumentor = URLLib3Instrumentor()
        if instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.uninstrument()
        self.provider.shutdown()


def _span_details(scope: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    # The method only: the raw path is a request value (it may hold anything a client
    # typed); the route template replaces it once routing has matched an operation.
    method = str(scope.get("method", "HTTP")).upper()
    return (method if method.isalpha() and len(method) <= 16 else "HTTP"), {}


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def tracing_exporters(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The span exporters the standard ``OTEL_*`` variables ask for; empty means off.

    On when ``OTEL_TRACES_EXPORTER`` names ``otlp`` or ``console``, or, with that
    variable unset, when ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set; off with ``OTEL_SDK_DISABLED=true``
    or ``OTEL_TRACES_EXPORTER=none``.

    Raises:
        TracingConfigError: an exporter or OTLP protocol this service does not ship
            (only ``otlp`` over ``http/protobuf`` and ``console``).
    """
    env = os.environ if environ is None else environ
    if _truthy(env.get("OTEL_SDK_DISABLED")):
        return ()
    names = env.get("OTEL_TRACES_EXPORTER")
    if names is None:
        endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        exporters = ["otlp"] if endpoint else []
    else:
        exporters = [name.strip().lower() for name in names.split(",") if name.strip()]
    exporters = [name for name in dict.fromkeys(exporters) if name != "none"]
    unknown = sorted(set(exporters) - {"otlp", "console"})
    if unknown:
        raise TracingConfigError(f"OTEL_TRACES_EXPORTER: unsupported exporter {unknown[0]!r}")
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    if "otlp" in exporters and protocol != "http/protobuf":
        raise TracingConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf is supported, not {protocol!r}"
        )
    return tuple(exporters)


def tracing_from_environment(environ: Mapping[str, str] | None = None) -> Tracing | None:
    """Tracing as the standard ``OTEL_*`` variables configure it, or ``None`` (off).

    Which exporters: :func:`tracing_exporters`. The exporter itself (endpoint, headers,
    timeout, compression), the sampler (``OTEL_TRACES_SAMPLER``), the batch processor
    (``OTEL_BSP_*``) and the resource (``OTEL_SERVICE_NAME``,
    ``OTEL_RESOURCE_ATTRIBUTES``) read their own variables from the process
    environment.

    Raises:
        TracingConfigError: see :func:`tracing_exporters`.
    """
    exporters = tracing_exporters(environ)
    if not exporters:
        return None
    provider = TracerProvider(resource=_resource())
    for name in exporters:
        exporter: SpanExporter
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        else:
            exporter = ConsoleSpanExporter()
        provider.add_span_processor(BatchSpanProcessor(ScrubbingExporter(exporter)))
    return Tracing(provider)
