"""Prometheus metrics over HTTP: exact counts after a scripted sequence (issue 12).

The service runs with metrics on and its listener on ``metrics.port``, in front of the
real PostgreSQL and, through a fault proxy, the real OPA. After an allow, a 403, a 404
and an OPA outage the scrape holds exactly the expected counts, nothing more; the
closed label sets match the contract and the policies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests

from app.observability.metrics import FAIL_CLOSED_SOURCES, FAILURE_KINDS, POOLS, Metrics
from app.policy import ENTRYPOINTS
from tests.integration.observability.conftest import Metered, counted, ours, sample
from tests.support.faults import HttpFaultProxy
from tests.support.run_context_world import (
    CAMPAIGNS,
    GENERAL,
    add_main_messages,
    add_run,
    add_thread,
    base_world,
    msg,
)
from tests.support.services import OpaServer
from tests.support.world import load

pytestmark = pytest.mark.integration

Start = Callable[..., Metered]
CONTEXT = "getRunContext"
READ = "run.context.read"
DECISION, EVALUATE = "authz/decision", "runcontext/evaluate"


def _world() -> dict[str, Any]:
    """Lotse's run r1 in a thread of general; texter's run in campaigns (invisible to lotse)."""
    world = base_world()
    add_main_messages(world, GENERAL, msg("p1", "alex", "Export thread."))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[msg("e1", "sam", "Earlier message."), msg("trig", "alex", "@lotse look.")],
    )
    add_main_messages(world, CAMPAIGNS, msg("mk-trig", "robin", "@texter draft the newsletter."))
    add_run(world, "r1", "t1", "trig", state="running")
    add_run(world, "r-marketing", CAMPAIGNS, "mk-trig", agent="texter", triggered_by="robin")
    return world


def _context(metered: Metered, run_id: str, token: str) -> requests.Response:
    return metered.service.client(token).get(f"/api/v1/runs/{run_id}/context")


def test_an_allow_a_403_a_404_and_an_outage_are_counted_exactly(
    metered: Callable[..., Metered], database_url: str, opa_server: OpaServer
) -> None:
    ids = load(database_url, _world())
    with HttpFaultProxy(opa_server.url) as opa:
        service = metered(opa_url=opa.url)
        assert counted(service.scrape()) == {}

        assert _context(service, ids["r1"], "tok-lotse").status_code == 200
        assert _context(service, ids["r1"], "tok-alex").status_code == 403
        assert _context(service, ids["r-marketing"], "tok-lotse").status_code == 404
        opa.refuse()
        assert _context(service, ids["r1"], "tok-lotse").status_code == 503

        samples = service.scrape()

    requests_ = "agent_authz_http_request_duration_seconds_count"
    rounds = "agent_authz_opa_round_trip_duration_seconds_count"
    decisions = "agent_authz_decisions_total"
    audits = "agent_authz_denial_audit_writes_total"
    assert counted(samples) == {
        sample(requests_, operation=CONTEXT, status="200"): 1,
        sample(requests_, operation=CONTEXT, status="403"): 1,
        sample(requests_, operation=CONTEXT, status="404"): 1,
        sample(requests_, operation=CONTEXT, status="503"): 1,
        sample(decisions, action=READ, allow="true", reason="allowed"): 1,
        sample(decisions, action=READ, allow="false", reason="subject_kind_not_allowed"): 1,
        sample(decisions, action=READ, allow="false", reason="not_found"): 1,
        sample(audits, action=READ, reason="subject_kind_not_allowed"): 1,
        sample(audits, action=READ, reason="not_found"): 1,
        # Three decisions answered, one refused connection; one batch for the allow.
        sample(rounds, entrypoint=DECISION): 4,
        sample(rounds, entrypoint=EVALUATE): 1,
        sample(
            "agent_authz_opa_round_trip_failures_total", entrypoint=DECISION, kind="unreachable"
        ): 1,
        sample("agent_authz_fail_closed_total", source="opa"): 1,
    }
    # Every connection went back to its pool, and nobody waits for one.
    for pool in POOLS:
        assert samples[sample("agent_authz_db_pool_connections_in_use", pool=pool)] == 0
        assert samples[sample("agent_authz_db_pool_waiting", pool=pool)] == 0
    # Latencies were observed: the 200's sum is positive and within its buckets.
    duration = samples[
        sample("agent_authz_http_request_duration_seconds_sum", operation=CONTEXT, status="200")
    ]
    assert 0 < duration < 10


def test_series_that_alerts_watch_exist_at_zero_from_the_start(
    metered: Callable[..., Metered],
) -> None:
    samples = ours(metered().scrape())

    for source in FAIL_CLOSED_SOURCES:
        assert samples[sample("agent_authz_fail_closed_total", source=source)] == 0
    for entrypoint in ENTRYPOINTS:
        assert (
            samples[
                sample("agent_authz_opa_round_trip_duration_seconds_count", entrypoint=entrypoint)
            ]
            == 0
        )
        for kind in FAILURE_KINDS:
            key = sample(
                "agent_authz_opa_round_trip_failures_total", entrypoint=entrypoint, kind=kind
            )
            assert samples[key] == 0
    assert samples[sample("agent_authz_rate_limited_total", **{"class": "agent_runtime"})] == 0


def test_a_rate_limited_request_is_counted_by_class(
    metered: Callable[..., Metered], database_url: str
) -> None:
    ids = load(database_url, _world())
    service = metered(**{"rate_limit.agent_runtime.per_minute": 1})

    assert _context(service, ids["r1"], "tok-lotse").status_code == 200
    assert _context(service, ids["r1"], "tok-lotse").status_code == 429

    samples = counted(service.scrape())
    assert samples[sample("agent_authz_rate_limited_total", **{"class": "agent_runtime"})] == 1
    requests_ = "agent_authz_http_request_duration_seconds_count"
    assert samples[sample(requests_, operation=CONTEXT, status="429")] == 1
    # A refused request is never decided.
    assert (
        samples[sample("agent_authz_decisions_total", action=READ, allow="true", reason="allowed")]
        == 1
    )


def test_an_unknown_path_is_counted_as_unmatched_never_by_its_path(
    metered: Callable[..., Metered],
) -> None:
    service = metered()
    client = service.service.client(None)

    response = client.get("/api/v1/no-such-thing/alex-wrote-this", validate=False)

    assert response.status_code == 404
    samples = counted(service.scrape())
    assert samples == {
        sample(
            "agent_authz_http_request_duration_seconds_count", operation="unmatched", status="404"
        ): 1
    }


def test_metrics_off_is_the_default_and_counts_nothing(
    make_service: Callable[..., Any],
) -> None:
    service = make_service()

    assert service.app.services.metrics is None


def test_label_sets_match_the_contract_and_the_policies(
    metered: Callable[..., Metered], opa_server: OpaServer
) -> None:
    service = metered()
    metrics: Metrics | None = service.service.app.services.metrics
    assert metrics is not None

    policy_actions = requests.get(f"{opa_server.url}/v1/data/authz/actions", timeout=10).json()
    assert metrics.labels.actions == frozenset(policy_actions["result"])
    assert metrics.labels.operations == frozenset(service.service.app.services.routes)
    assert metrics.labels.entrypoints == frozenset(ENTRYPOINTS)
