"""The service's Prometheus metrics: names, closed label sets, and what counts them.

One registry per app; with several workers the same objects write to the multiprocess
files that :mod:`app.observability.exposition` sums. Every label value comes from a
set known at start-up (the contract's operations and actions, the policies' reasons,
the gateway's entry points, rate-limit classes, failure kinds), anything else counts
as ``other``, so no label carries an id, a handle or content. What each metric means:
``docs/operations.md``; decisions O3, O4, B9.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)

from app.domain.decisions import Decision
from app.http.ratelimit import FAILED_AUTH_CLASS, STORAGE_FAILURE_KINDS
from app.http.routes import Route
from app.policy import ENTRYPOINTS, REASONS

__all__ = [
    "FAILURE_KINDS",
    "FAIL_CLOSED_SOURCES",
    "FILTER_MODE_ACTIONS",
    "NO_REVISION",
    "OTHER",
    "POOLS",
    "UNMATCHED",
    "LabelSets",
    "Metrics",
    "PoolGauges",
]

# No *_created series: they double every counter and histogram, multiprocess mode has
# none, and Prometheus' rate() does not need them. A process-wide switch of the client.
disable_created_metrics()  # type: ignore[no-untyped-call]  # untyped upstream

NAMESPACE = "agent_authz"
# The label value for anything outside its closed set.
OTHER = "other"
# The reason of every allow (policies/authz/results: allowed).
ALLOWED = "allowed"
# The operation of a request that no operation of the contract matched (unknown path,
# undeclared method, the spec document, Swagger UI); the access log says the same.
UNMATCHED = "unmatched"
# Why an OPA round trip failed (app.opa_client's error tree; app.observability.calls).
FAILURE_KINDS = ("unreachable", "timeout", "http_error", "undefined", "malformed")
# What a 503 answer failed closed on: OPA, PostgreSQL, a source a use case checked
# itself (the privacy guard's lock, policy and schema; readiness), or the rate-limit
# storage (only with rate_limit.storage_failure_mode closed).
FAIL_CLOSED_SOURCES = ("opa", "database", "service", "rate_limit")
# The two connection pools of an app (app/services.py): transactions and autocommit reads.
POOLS = ("write", "read")
# Actions the policies decide that no operation is decided as (x-action): the filter
# mode of the run context reads. With the operations' actions they are exactly the
# policies' action set (data.authz.actions; a test pins that).
FILTER_MODE_ACTIONS = frozenset({"message.read"})

# The revision label when the sidecar answers without a bundle revision (it serves a
# policy folder: make run's working tree, the tests).
NO_REVISION = "none"
# prometheus_client's multiprocess mode (app/observability/exposition.py) keeps every
# series a worker wrote; it cannot remove one.
_MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Request latency: a context read takes a few milliseconds, a slow one a second.
REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# OPA round trips: a fraction of a millisecond up to opa.timeout_seconds.
OPA_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@dataclass(frozen=True, slots=True)
class LabelSets:
    """The closed sets label values are drawn from.

    Attributes:
        operations: operationIds of ``openapi/openapi.yaml``.
        actions: the ``x-action`` of every operation and :data:`FILTER_MODE_ACTIONS`
            (together, the actions the policies know).
        reasons: the policies' closed reason list (``app.policy.REASONS``).
        entrypoints: the policy gateway's entry points (``app.policy.ENTRYPOINTS``).
        rate_classes: the ``x-rate-limit-class`` of every operation and the
            failed-authentication class.
    """

    operations: frozenset[str]
    actions: frozenset[str]
    reasons: frozenset[str]
    entrypoints: frozenset[str]
    rate_classes: frozenset[str]

    @classmethod
    def from_routes(cls, routes: Mapping[str, Route]) -> LabelSets:
        """The sets of this contract and these policies."""
        return cls(
            operations=frozenset(routes),
            actions=frozenset(route.action for route in routes.values()) | FILTER_MODE_ACTIONS,
            reasons=frozenset(REASONS),
            entrypoints=frozenset(ENTRYPOINTS),
            rate_classes=frozenset(route.rate_class for route in routes.values())
            | {FAILED_AUTH_CLASS},
        )


def _closed(value: str, allowed: Iterable[str]) -> str:
    return value if value in allowed else OTHER


@dataclass(frozen=True, slots=True)
class PoolGauges:
    """The two gauges of one connection pool (``in_use``, ``waiting``)."""

    in_use: Gauge
    waiting: Gauge


class Metrics:
    """Every metric of one app, and the calls that count them.

    The methods are the observers the layers accept (``RequestObserver`` of the
    correlation middleware, ``DecisionObserver`` of the ``Authorizer``, the gateway's
    call observer through :class:`~app.observability.calls.ObservedCalls`, the rate
    limiter's ``on_reject`` and ``on_storage_failure``); none of them raises for a
    value outside a closed set.

    Args:
        labels: the closed label sets.
        registry: where the metrics are registered; a new one by default.

    Example::

        metrics = Metrics(LabelSets.from_routes(routes))
        metrics.decided("message.post", decision)
        generate_latest(metrics.registry)
    """

    def __init__(self, labels: LabelSets, registry: CollectorRegistry | None = None) -> None:
        self.labels = labels
        self.registry = registry if registry is not None else CollectorRegistry()
        self._requests = self._histogram(
            "http_request_duration_seconds",
            "Requests by operation and HTTP status, and their latency in seconds (from the "
            "first byte received to the last byte sent); _count is the request count.",
            ("operation", "status"),
            REQUEST_BUCKETS,
        )
        self._decisions = self._counter(
            "decisions",
            "Authorization decisions taken for requests, by action, outcome and reason.",
            ("action", "allow", "reason"),
        )
        self._audit_writes = self._counter(
            "denial_audit_writes",
            "Denials written to the audit log (a new row or an aggregated one).",
            ("action", "reason"),
        )
        self._filter_mismatches = self._counter(
            "filter_mismatches",
            "Elements a filter-mode check dropped although SQL had selected them (SQL and "
            "policy disagree; decisions.md S0-3).",
            ("action",),
        )
        self._opa = self._histogram(
            "opa_round_trip_duration_seconds",
            "OPA round trips by policy entry point and their latency in seconds (answer "
            "validation included); _count is the round trips, failed ones included.",
            ("entrypoint",),
            OPA_BUCKETS,
        )
        self._opa_failures = self._counter(
            "opa_round_trip_failures",
            "OPA round trips that gave no usable answer, by entry point and kind.",
            ("entrypoint", "kind"),
        )
        self._fail_closed = self._counter(
            "fail_closed",
            "Requests answered 503 because a source could not answer (fail closed).",
            ("source",),
        )
        self._rate_limited = self._counter(
            "rate_limited",
            "Requests or relayed calls refused by the rate limit, by rate-limit class.",
            ("class",),
        )
        self._rate_limit_storage_failures = self._counter(
            "rate_limit_storage_failures",
            "Rate-limit storage calls that failed (unreachable, timeout, error); each one "
            "let its request through unlimited, or answered 503 when "
            "rate_limit.storage_failure_mode is closed.",
            ("kind",),
        )
        # livesum: with several workers, the sum over the workers alive now.
        in_use = self._gauge(
            "db_pool_connections_in_use",
            "Database connections checked out of the pool now.",
            ("pool",),
            "livesum",
        )
        waiting = self._gauge(
            "db_pool_waiting",
            "Threads getting a connection from the pool now (taking an idle one, opening "
            "one, or blocked because all are in use).",
            ("pool",),
            "livesum",
        )
        self.pools = {pool: PoolGauges(in_use.labels(pool), waiting.labels(pool)) for pool in POOLS}
        # livemax: with several workers, 1 for every revision some live worker decides
        # with now (two during a switch), 0 for one they all left behind.
        self._revision = self._gauge(
            "policy_revision_info",
            "1 for the revision of the signed policy bundle this replica decides with now "
            "(OPA's provenance of its answers); 'none' when the sidecar serves no bundle "
            "revision. Replicas that disagree show as several revisions.",
            ("revision",),
            "livemax",
        )
        self._revision_lock = threading.Lock()
        self._active_revision: str | None = None
        # Series that alerts and dashboards compare against exist from the start at 0,
        # so rate() and absent-series rules work before the first failure.
        self._start_at_zero()

    # The three constructors put every metric under NAMESPACE in this app's registry.
    def _counter(self, name: str, documentation: str, labels: tuple[str, ...]) -> Counter:
        return Counter(f"{NAMESPACE}_{name}", documentation, labels, registry=self.registry)

    def _histogram(
        self, name: str, documentation: str, labels: tuple[str, ...], buckets: tuple[float, ...]
    ) -> Histogram:
        return Histogram(
            f"{NAMESPACE}_{name}", documentation, labels, buckets=buckets, registry=self.registry
        )

    def _gauge(
        self,
        name: str,
        documentation: str,
        labels: tuple[str, ...],
        mode: Literal["livesum", "livemax"],
    ) -> Gauge:
        """A gauge; ``mode`` says how multiprocess mode combines the workers' values."""
        return Gauge(
            f"{NAMESPACE}_{name}",
            documentation,
            labels,
            registry=self.registry,
            multiprocess_mode=mode,
        )

    def _start_at_zero(self) -> None:
        """Create every series of a closed label set at 0, in every worker.

        A counter series that first appears with the value 1 has no increase: an
        alert on ``increase(...) > 0`` would miss a process's first filter mismatch,
        and with several workers a metric nobody counted yet would not even be
        exposed. So each series exists from the start (in multiprocess mode each
        worker writes its zeros to its file). Only combinations the policies can
        produce are created: an allow has the reason ``allowed``, a denial any other.
        """
        labels = self.labels
        denial_reasons = sorted(labels.reasons - {ALLOWED})
        for action in sorted(labels.actions):
            if ALLOWED in labels.reasons:
                self._decisions.labels(action, "true", ALLOWED)
            for reason in denial_reasons:
                self._decisions.labels(action, "false", reason)
                self._audit_writes.labels(action, reason)
        for action in sorted(FILTER_MODE_ACTIONS & labels.actions):
            self._filter_mismatches.labels(action)
        for source in FAIL_CLOSED_SOURCES:
            self._fail_closed.labels(source)
        for entrypoint in sorted(labels.entrypoints):
            self._opa.labels(entrypoint)
            for kind in FAILURE_KINDS:
                self._opa_failures.labels(entrypoint, kind)
        for rate_class in sorted(labels.rate_classes):
            self._rate_limited.labels(rate_class)
        for kind in STORAGE_FAILURE_KINDS:
            self._rate_limit_storage_failures.labels(kind)

    def request_finished(self, operation_id: str, status: int, seconds: float) -> None:
        """Count one answered request of ``operation_id`` (or :data:`UNMATCHED`)."""
        operation = (
            operation_id
            if operation_id == UNMATCHED
            else _closed(operation_id, self.labels.operations)
        )
        status_label = str(status) if 100 <= status <= 599 else OTHER
        self._requests.labels(operation, status_label).observe(seconds)

    def decided(self, action: str, decision: Decision) -> None:
        """Count one decision taken for a request."""
        self._decisions.labels(
            _closed(action, self.labels.actions),
            "true" if decision.allow else "false",
            _closed(decision.reason, self.labels.reasons),
        ).inc()

    def denial_audited(self, action: str, decision: Decision) -> None:
        """Count one denial written to the audit log."""
        self._audit_writes.labels(
            _closed(action, self.labels.actions), _closed(decision.reason, self.labels.reasons)
        ).inc()

    def filter_mismatch(self, action: str, dropped: int) -> None:
        """Count ``dropped`` elements that a filter-mode check removed."""
        self._filter_mismatches.labels(_closed(action, self.labels.actions)).inc(dropped)

    def opa_round_trip(self, entrypoint: str, seconds: float, failure: str | None) -> None:
        """Count one OPA round trip; ``failure`` is one of :data:`FAILURE_KINDS` or None."""
        label = _closed(entrypoint, self.labels.entrypoints)
        self._opa.labels(label).observe(seconds)
        if failure is not None:
            self._opa_failures.labels(label, _closed(failure, FAILURE_KINDS)).inc()

    def fail_closed(self, source: str) -> None:
        """Count one 503 answer; ``source`` is one of :data:`FAIL_CLOSED_SOURCES`."""
        self._fail_closed.labels(_closed(source, FAIL_CLOSED_SOURCES)).inc()

    def policy_revision(self, revision: str | None) -> None:
        """Note the bundle revision of an OPA answer (``None``: it named none).

        Cheap when nothing changed (every OPA answer calls it). On a change the new
        revision's series goes to 1 and the previous one is removed (set to 0 in
        multiprocess mode, which cannot remove a series).
        """
        label = revision if revision is not None else NO_REVISION
        if label == self._active_revision:
            return
        with self._revision_lock:
            previous = self._active_revision
            if label == previous:
                return
            self._active_revision = label
            self._revision.labels(label).set(1)
            if previous is not None:
                self._revision.labels(previous).set(0)
                if not os.environ.get(_MULTIPROCESS_ENV):
                    self._revision.remove(previous)

    def rate_limited(self, rate_class: str) -> None:
        """Count one rate-limit rejection in ``rate_class``."""
        self._rate_limited.labels(_closed(rate_class, self.labels.rate_classes)).inc()

    def rate_limit_storage_failed(self, kind: str) -> None:
        """Count one failed rate-limit storage call (``STORAGE_FAILURE_KINDS``)."""
        self._rate_limit_storage_failures.labels(_closed(kind, STORAGE_FAILURE_KINDS)).inc()
