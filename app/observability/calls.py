"""Watching OPA round trips: latency, failures by kind, and a span per call.

:class:`ObservedCalls` is the policy gateway's call observer
(``PolicyGateway(transport, observer=...)``): the gateway wraps each call, from the
request to the validated answer, in :meth:`ObservedCalls.observe`, so a malformed
answer is seen as well as a transport failure. The failure kinds come from the OPA
client's error tree (:mod:`app.opa_client`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from app.observability.metrics import Metrics
from app.opa_client import (
    OpaHttpError,
    OpaMalformed,
    OpaTimeout,
    OpaUnavailable,
    OpaUndefined,
)

__all__ = ["ObservedCalls", "failure_kind"]


def failure_kind(error: OpaUnavailable) -> str:
    """The metric's ``kind`` of a failed round trip (``FAILURE_KINDS``)."""
    if isinstance(error, OpaMalformed):
        return "malformed"
    if isinstance(error, OpaUndefined):
        return "undefined"
    if isinstance(error, OpaTimeout):
        return "timeout"
    if isinstance(error, OpaHttpError):
        return "http_error"
    return "unreachable"


class ObservedCalls:
    """Count and trace every OPA round trip of one app.

    Args:
        metrics: where round trips are counted (``None``: metrics are off).
        tracer: where the ``opa <entrypoint>`` spans go (``None``: tracing is off).
    """

    def __init__(self, metrics: Metrics | None, tracer: Tracer | None) -> None:
        self._metrics = metrics
        self._tracer = tracer

    @contextmanager
    def observe(self, entrypoint: str) -> Iterator[None]:
        """Watch one call to ``entrypoint``; a failure is counted and re-raised.

        Raises:
            OpaUnavailable: whatever the call raised, unchanged.
        """
        if self._tracer is None:
            with self._timed(entrypoint, None):
                yield
            return
        # No exception recording: an exception's text is not on the span allow-list
        # anyway, and the failure kind says what went wrong.
        with (
            self._tracer.start_as_current_span(
                f"opa {entrypoint}",
                kind=SpanKind.INTERNAL,
                attributes={"agent_authz.opa.entrypoint": entrypoint},
                record_exception=False,
                set_status_on_exception=False,
            ) as span,
            self._timed(entrypoint, span),
        ):
            yield

    @contextmanager
    def _timed(self, entrypoint: str, span: Span | None) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        except OpaUnavailable as error:
            kind = failure_kind(error)
            if self._metrics is not None:
                self._metrics.opa_round_trip(entrypoint, time.perf_counter() - started, kind)
            if span is not None:
                span.set_attribute("agent_authz.opa.failure", kind)
                span.set_status(Status(StatusCode.ERROR))
            raise
        if self._metrics is not None:
            self._metrics.opa_round_trip(entrypoint, time.perf_counter() - started, None)
