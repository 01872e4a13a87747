"""The metrics object: closed label sets, what each call counts, registries apart."""

from __future__ import annotations

import pytest
from prometheus_client import generate_latest

from app.domain.decisions import Decision
from app.http.ratelimit import FAILED_AUTH_CLASS, STORAGE_FAILURE_KINDS
from app.http.routes import load_routes, load_spec
from app.observability.metrics import (
    FAIL_CLOSED_SOURCES,
    FAILURE_KINDS,
    FILTER_MODE_ACTIONS,
    NO_REVISION,
    OTHER,
    POOLS,
    UNMATCHED,
    LabelSets,
    Metrics,
)
from app.policy import ENTRYPOINTS, REASONS

ALLOW = Decision(allow=True, reason="allowed", status=200)
DENY = Decision(allow=False, reason="not_self", status=403)


@pytest.fixture
def metrics() -> Metrics:
    """Metrics of the real contract's label sets, on a registry of their own."""
    return Metrics(LabelSets.from_routes(load_routes(load_spec())))


def value(metrics: Metrics, name: str, **labels: str) -> float | None:
    """One sample of ``metrics``' registry."""
    return metrics.registry.get_sample_value(name, labels)


def test_label_sets_come_from_the_contract_and_the_policy_lists() -> None:
    routes = load_routes(load_spec())
    labels = LabelSets.from_routes(routes)

    assert labels.operations == frozenset(routes)
    assert labels.actions == {r.action for r in routes.values()} | FILTER_MODE_ACTIONS
    assert labels.reasons == REASONS
    assert labels.entrypoints == frozenset(ENTRYPOINTS)
    assert labels.rate_classes == {r.rate_class for r in routes.values()} | {FAILED_AUTH_CLASS}


def test_a_request_is_counted_by_operation_and_status(metrics: Metrics) -> None:
    metrics.request_finished("getRunContext", 200, 0.012)
    metrics.request_finished("getRunContext", 200, 0.020)
    metrics.request_finished(UNMATCHED, 404, 0.001)

    name = "agent_authz_http_request_duration_seconds"
    assert value(metrics, f"{name}_count", operation="getRunContext", status="200") == 2
    assert value(metrics, f"{name}_sum", operation="getRunContext", status="200") == pytest.approx(
        0.032
    )
    assert value(metrics, f"{name}_bucket", operation="getRunContext", status="200", le="0.01") == 0
    assert value(metrics, f"{name}_count", operation=UNMATCHED, status="404") == 1


@pytest.mark.parametrize(
    ("operation", "status", "labels"),
    [
        ("alex-wrote-this", 200, {"operation": OTHER, "status": "200"}),
        ("getRunContext", 999, {"operation": "getRunContext", "status": OTHER}),
    ],
)
def test_values_outside_their_sets_are_counted_as_other(
    metrics: Metrics, operation: str, status: int, labels: dict[str, str]
) -> None:
    metrics.request_finished(operation, status, 0.001)

    assert value(metrics, "agent_authz_http_request_duration_seconds_count", **labels) == 1


def test_decisions_audit_writes_and_mismatches_are_counted_by_closed_labels(
    metrics: Metrics,
) -> None:
    metrics.decided("run.context.read", ALLOW)
    metrics.decided("run.context.read", DENY)
    metrics.decided("canary.action", Decision(allow=False, reason="canary", status=403))
    metrics.denial_audited("run.context.read", DENY)
    metrics.filter_mismatch("message.read", 3)

    decisions = "agent_authz_decisions_total"
    assert value(metrics, decisions, action="run.context.read", allow="true", reason="allowed") == 1
    assert (
        value(metrics, decisions, action="run.context.read", allow="false", reason="not_self") == 1
    )
    assert value(metrics, decisions, action=OTHER, allow="false", reason=OTHER) == 1
    assert (
        value(
            metrics,
            "agent_authz_denial_audit_writes_total",
            action="run.context.read",
            reason="not_self",
        )
        == 1
    )
    assert value(metrics, "agent_authz_filter_mismatches_total", action="message.read") == 3


def test_opa_round_trips_fail_closed_answers_and_rate_limits(metrics: Metrics) -> None:
    metrics.opa_round_trip("authz/decision", 0.001, None)
    metrics.opa_round_trip("authz/decision", 2.0, "timeout")
    metrics.opa_round_trip("runcontext/evaluate", 0.003, "no-such-kind")
    metrics.fail_closed("opa")
    metrics.fail_closed("somewhere")
    metrics.rate_limited("agent_runtime")
    metrics.rate_limited(FAILED_AUTH_CLASS)
    metrics.rate_limit_storage_failed("timeout")
    metrics.rate_limit_storage_failed("no-such-kind")

    rounds = "agent_authz_opa_round_trip_duration_seconds_count"
    failures = "agent_authz_opa_round_trip_failures_total"
    assert value(metrics, rounds, entrypoint="authz/decision") == 2
    assert value(metrics, failures, entrypoint="authz/decision", kind="timeout") == 1
    assert value(metrics, failures, entrypoint="runcontext/evaluate", kind=OTHER) == 1
    assert value(metrics, "agent_authz_fail_closed_total", source="opa") == 1
    assert value(metrics, "agent_authz_fail_closed_total", source=OTHER) == 1
    assert value(metrics, "agent_authz_rate_limited_total", **{"class": "agent_runtime"}) == 1
    assert value(metrics, "agent_authz_rate_limited_total", **{"class": FAILED_AUTH_CLASS}) == 1
    storage = "agent_authz_rate_limit_storage_failures_total"
    assert value(metrics, storage, kind="timeout") == 1
    assert value(metrics, storage, kind=OTHER) == 1


def test_watched_series_exist_at_zero_before_anything_happens(metrics: Metrics) -> None:
    for source in FAIL_CLOSED_SOURCES:
        assert value(metrics, "agent_authz_fail_closed_total", source=source) == 0
    for entrypoint in ENTRYPOINTS:
        for kind in FAILURE_KINDS:
            assert (
                value(
                    metrics,
                    "agent_authz_opa_round_trip_failures_total",
                    entrypoint=entrypoint,
                    kind=kind,
                )
                == 0
            )
    for kind in STORAGE_FAILURE_KINDS:
        assert value(metrics, "agent_authz_rate_limit_storage_failures_total", kind=kind) == 0
    for pool in POOLS:
        assert value(metrics, "agent_authz_db_pool_connections_in_use", pool=pool) == 0
        assert value(metrics, "agent_authz_db_pool_waiting", pool=pool) == 0


def test_two_apps_count_apart() -> None:
    labels = LabelSets.from_routes(load_routes(load_spec()))
    first, second = Metrics(labels), Metrics(labels)

    first.fail_closed("opa")

    assert first.registry.get_sample_value("agent_authz_fail_closed_total", {"source": "opa"}) == 1
    assert second.registry.get_sample_value("agent_authz_fail_closed_total", {"source": "opa"}) == 0


def test_every_metric_is_documented_for_operators(metrics: Metrics) -> None:
    text = generate_latest(metrics.registry).decode()

    names = {line.split()[2] for line in text.splitlines() if line.startswith("# HELP agent_authz")}
    assert names == {
        "agent_authz_http_request_duration_seconds",
        "agent_authz_decisions_total",
        "agent_authz_denial_audit_writes_total",
        "agent_authz_filter_mismatches_total",
        "agent_authz_opa_round_trip_duration_seconds",
        "agent_authz_opa_round_trip_failures_total",
        "agent_authz_fail_closed_total",
        "agent_authz_rate_limited_total",
        "agent_authz_rate_limit_storage_failures_total",
        "agent_authz_db_pool_connections_in_use",
        "agent_authz_db_pool_waiting",
        "agent_authz_policy_revision_info",
    }


def _revisions(metrics: Metrics) -> dict[str, float]:
    return {
        sample.labels["revision"]: sample.value
        for family in metrics.registry.collect()
        if family.name == "agent_authz_policy_revision_info"
        for sample in family.samples
    }


def test_the_revision_info_names_only_the_revision_decided_with_now(metrics: Metrics) -> None:
    assert _revisions(metrics) == {}

    metrics.policy_revision("4f1c2ab")
    metrics.policy_revision("4f1c2ab")
    assert _revisions(metrics) == {"4f1c2ab": 1}

    metrics.policy_revision("9e0d7c1-dirty")
    assert _revisions(metrics) == {"9e0d7c1-dirty": 1}


def test_answers_without_a_bundle_revision_count_as_none(metrics: Metrics) -> None:
    metrics.policy_revision(None)
    assert _revisions(metrics) == {NO_REVISION: 1}

    metrics.policy_revision("4f1c2ab")
    assert _revisions(metrics) == {"4f1c2ab": 1}


def test_in_multiprocess_mode_a_left_revision_stays_at_zero(
    metrics: Metrics, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "/nonexistent")  # only read for removal
    metrics.policy_revision("4f1c2ab")
    metrics.policy_revision("9e0d7c1")

    assert _revisions(metrics) == {"4f1c2ab": 0, "9e0d7c1": 1}


def test_every_counter_of_a_closed_label_set_starts_at_zero(metrics: Metrics) -> None:
    """Issue 19: an alert on increase() sees a process's first event, from any worker."""
    labels = metrics.labels
    for action in labels.actions:
        assert (
            value(
                metrics,
                "agent_authz_decisions_total",
                action=action,
                allow="true",
                reason="allowed",
            )
            == 0
        )
        for reason in labels.reasons - {"allowed"}:
            assert (
                value(
                    metrics,
                    "agent_authz_decisions_total",
                    action=action,
                    allow="false",
                    reason=reason,
                )
                == 0
            )
            assert (
                value(
                    metrics, "agent_authz_denial_audit_writes_total", action=action, reason=reason
                )
                == 0
            )
    for action in FILTER_MODE_ACTIONS:
        assert value(metrics, "agent_authz_filter_mismatches_total", action=action) == 0
    for rate_class in labels.rate_classes:
        assert value(metrics, "agent_authz_rate_limited_total", **{"class": rate_class}) == 0
    # Only combinations the policies produce: an allow is never counted with a denial reason.
    assert (
        value(
            metrics,
            "agent_authz_decisions_total",
            action="message.post",
            allow="true",
            reason="no_grant",
        )
        is None
    )
    exposed = generate_latest(metrics.registry).decode()
    assert "# TYPE agent_authz_filter_mismatches_total counter" in exposed
