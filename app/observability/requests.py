"""Watching requests: the request metric and the request span's name and attributes.

:class:`ObservedRequests` is the correlation middleware's request observer
(:class:`~app.http.correlation.CorrelationMiddleware`): it is told when a request
starts (with its correlation id), when its answer starts (by then routing has named the
operation) and when the last byte is sent.
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry.trace import Span

from app.http.routes import Route
from app.observability.metrics import Metrics

__all__ = ["ObservedRequest", "ObservedRequests"]


class ObservedRequest:
    """One request being served (see :class:`ObservedRequests`)."""

    __slots__ = ("_observer", "_span")

    def __init__(self, observer: ObservedRequests, span: Span | None) -> None:
        self._observer = observer
        self._span = span

    def responding(self, operation_id: str, status: int) -> None:
        """The answer starts: name the request span after the operation's route.

        The span is named ``<METHOD> <route template>`` and gets ``http.route`` (the
        template, never the raw path) and ``agent_authz.operation``.
        """
        span = self._span
        if span is None or not span.is_recording():
            return
        route = self._observer.routes.get(operation_id)
        if route is None:
            return
        span.update_name(f"{route.method} {route.path}")
        span.set_attribute("http.route", route.path)
        span.set_attribute("agent_authz.operation", operation_id)

    def finished(self, operation_id: str, status: int, seconds: float) -> None:
        """The last byte is sent (or the request ended without an answer): count it."""
        metrics = self._observer.metrics
        if metrics is not None:
            metrics.request_finished(operation_id, status, seconds)


class ObservedRequests:
    """Count requests and name their spans.

    Args:
        routes: the operations of the contract, by operationId.
        metrics: where requests are counted (``None``: metrics are off).
        traced: whether a request span is open around each request (tracing is on).
    """

    def __init__(self, routes: Mapping[str, Route], metrics: Metrics | None, traced: bool) -> None:
        self.routes = routes
        self.metrics = metrics
        self._traced = traced
        # Without tracing every request is watched alike: one watcher serves them all.
        self._untraced = ObservedRequest(self, None)

    def started(self, correlation_id: str) -> ObservedRequest:
        """A request starts; its span (the current one) gets the correlation id."""
        if not self._traced:
            return self._untraced
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attribute("agent_authz.correlation_id", correlation_id)
        return ObservedRequest(self, span)
