"""A stand-in OTLP/HTTP trace collector on 127.0.0.1 for the tracing tests.

It accepts ``POST /v1/traces`` with a protobuf ``ExportTraceServiceRequest`` (what
the Python SDK's OTLP/HTTP exporter and OPA's ``distributed_tracing`` of type
``http`` send), decodes it with the official protobuf classes and keeps each span as a
:class:`ReceivedSpan`. Nothing else is implemented: it answers 404 to anything else.

Example::

    with OtlpReceiver() as collector:
        ...  # point OTEL_EXPORTER_OTLP_ENDPOINT (or OPA) at collector.endpoint
        spans = collector.wait_for(lambda spans: len(spans) >= 3)
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

__all__ = ["OtlpReceiver", "ReceivedSpan"]

# OTLP's span kinds (opentelemetry.proto.trace.v1.Span.SpanKind).
_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}


def _value(value: AnyValue) -> Any:
    field = value.WhichOneof("value")
    if field is None:
        return None
    if field == "array_value":
        return [_value(item) for item in value.array_value.values]
    if field == "kvlist_value":
        return {item.key: _value(item.value) for item in value.kvlist_value.values}
    return getattr(value, field)


@dataclass(frozen=True)
class ReceivedSpan:
    """One exported span, decoded."""

    service: str
    name: str
    kind: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    status_code: int
    status_message: str
    events: list[tuple[str, dict[str, Any]]]
    resource: dict[str, Any]


class OtlpReceiver:
    """A threaded HTTP server collecting the spans posted to ``/v1/traces``."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver._keep(request)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        """``127.0.0.1:<port>`` (OPA's ``distributed_tracing.address``)."""
        return f"127.0.0.1:{self._server.server_port}"

    @property
    def endpoint(self) -> str:
        """``http://127.0.0.1:<port>`` (``OTEL_EXPORTER_OTLP_ENDPOINT``)."""
        return f"http://{self.address}"

    def _keep(self, request: ExportTraceServiceRequest) -> None:
        received: list[ReceivedSpan] = []
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(
                        ReceivedSpan(
                            service=str(resource.get("service.name", "")),
                            name=span.name,
                            kind=_KINDS.get(span.kind, str(span.kind)),
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            attributes={a.key: _value(a.value) for a in span.attributes},
                            status_code=span.status.code,
                            status_message=span.status.message,
                            events=[
                                (e.name, {a.key: _value(a.value) for a in e.attributes})
                                for e in span.events
                            ],
                            resource=resource,
                        )
                    )
        with self._lock:
            self.spans.extend(received)

    def received(self) -> list[ReceivedSpan]:
        """A copy of the spans received so far."""
        with self._lock:
            return list(self.spans)

    def wait_for(
        self, done: Callable[[list[ReceivedSpan]], bool], timeout: float = 20.0
    ) -> list[ReceivedSpan]:
        """The spans received once ``done(spans)`` holds.

        Raises:
            AssertionError: ``done`` did not hold within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            spans = self.received()
            if done(spans):
                return spans
            if time.monotonic() > deadline:
                raise AssertionError(f"collector: condition not met; {len(spans)} spans")
            time.sleep(0.05)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
