"""Canary over every metric label and every span attribute (issue 12, decisions.md S0).

Distinct canary strings go into message contents, display names, a handle, a token, a
client request id, a request path, a query string and a User-Agent. After reads,
posts, denials, an explained decision and requests the contract rejects, with metrics
and tracing both on:

* the scrape of ``/metrics`` contains none of them, and every label value belongs to
  its closed set;
* no exported span (the app's, after the scrubbing exporter, and OPA's own, received
  by a stand-in collector) carries one in its name, an attribute, an event or its
  status, and the app's spans carry only allow-listed attribute keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
import requests
from opentelemetry.instrumentation.utils import suppress_http_instrumentation
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from app.http.ratelimit import STORAGE_FAILURE_KINDS
from app.observability.metrics import (
    FAIL_CLOSED_SOURCES,
    FAILURE_KINDS,
    NO_REVISION,
    OTHER,
    POOLS,
    UNMATCHED,
    Metrics,
)
from app.observability.tracing import ALLOWED_ATTRIBUTES, Tracing
from tests.integration.observability.conftest import Metered
from tests.support.client import ApiClient
from tests.support.otlp import OtlpReceiver
from tests.support.run_context_world import (
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

CONTENT = "canary-content-3f9a1c"
POSTED = "canary-posted-77b2e0"
DISPLAY_NAME = "Canary name-c0ffee"
HANDLE = "canary-handle-5e1d"
TOKEN = "tok-canary-secret-a8e4"
REQUEST_ID = "canary-request-id-2b7f"
PATH = "canary-path-9d31"
QUERY = "canary-query-6a02"
AGENT = "canary-agent-ua-4c8b"
CANARIES = (CONTENT, POSTED, DISPLAY_NAME, HANDLE, TOKEN, REQUEST_ID, PATH, QUERY, AGENT)
URL_ATTRIBUTES = {"http.url", "url.full"}


def _world() -> dict[str, Any]:
    world = base_world()
    world["people"].append(
        {
            "handle": HANDLE,
            "display_name": DISPLAY_NAME,
            "email": "canary@example.com",
            "token": TOKEN,
        }
    )
    world["grants"].append({"subject": HANDLE, "target": f"channel:{GENERAL}", "level": "trigger"})
    add_main_messages(world, GENERAL, msg("p1", HANDLE, f"Parent {CONTENT}"))
    add_thread(
        world,
        "t1",
        parent="p1",
        messages=[msg("e1", HANDLE, f"Earlier {CONTENT}"), msg("trig", "alex", "@lotse go")],
    )
    add_run(world, "r1", "t1", "trig", state="running")
    return world


def _scenario(client: Callable[[str | None], ApiClient], ids: dict[str, str]) -> None:
    general = f"/api/v1/channels/{ids[GENERAL]}/messages"
    canary = client(TOKEN)
    headers = {"User-Agent": AGENT}
    with suppress_http_instrumentation():
        posted = canary.post(
            general,
            json={"content_md": POSTED, "client_request_id": REQUEST_ID},
            headers=headers,
        )
        assert posted.status_code == 201, posted.text
        assert canary.get(general, headers=headers).status_code == 200
        context = client("tok-lotse").get(f"/api/v1/runs/{ids['r1']}/context", headers=headers)
        assert context.status_code == 200
        assert CONTENT in context.text
        assert DISPLAY_NAME in context.text
        # A person is refused the context (403), audited under the canary's id only.
        assert canary.get(f"/api/v1/runs/{ids['r1']}/context").status_code == 403
        explained = client("tok-robin").post(
            "/api/v1/authz/explain",
            json={
                "actor_id": ids[HANDLE],
                "action": "message.list",
                "resource": {"kind": "channel", "id": ids[GENERAL]},
            },
        )
        assert explained.status_code == 200, explained.text
        for path in (
            f"/api/v1/channels/{PATH}/messages?before={QUERY}",
            f"/api/v1/{PATH}",
            f"{general}?{QUERY}=1",
        ):
            answer = canary.get(path, headers=headers, validate=False)
            assert 400 <= answer.status_code < 500


def _label_sets(metrics: Metrics) -> dict[str, set[str]]:
    labels = metrics.labels
    return {
        "operation": set(labels.operations) | {UNMATCHED, OTHER},
        "action": set(labels.actions) | {OTHER},
        "reason": set(labels.reasons) | {OTHER},
        "allow": {"true", "false"},
        "entrypoint": set(labels.entrypoints) | {OTHER},
        "kind": set(FAILURE_KINDS) | set(STORAGE_FAILURE_KINDS) | {OTHER},
        "source": set(FAIL_CLOSED_SOURCES) | {OTHER},
        "class": set(labels.rate_classes) | {OTHER},
        "pool": set(POOLS),
        # One value per policy release; this OPA serves the working tree: none.
        "revision": {NO_REVISION},
    }


def test_no_canary_in_any_metric_label_or_span_attribute(
    metered: Callable[..., Metered],
    database_url: str,
    traced_opa: OpaServer,
    collector: OtlpReceiver,
) -> None:
    ids = load(database_url, _world())
    exporter = InMemorySpanExporter()
    service = metered(opa_url=traced_opa.url, tracing=Tracing.exporting_to(exporter, batch=False))
    _scenario(service.service.client, ids)

    # Metrics: no canary anywhere in the exposition; every label value from its set.
    text = requests.get(service.listener.url, timeout=10).text
    for canary in CANARIES:
        assert canary not in text, canary
    metrics = service.service.app.services.metrics
    assert metrics is not None
    allowed = _label_sets(metrics)
    families = [f for f in text_string_to_metric_families(text) if f.name.startswith("agent_authz")]
    assert families
    for family in families:
        for sample in family.samples:
            for name, value in sample.labels.items():
                if name == "le":
                    float(value)
                elif name == "status":
                    assert re.fullmatch(r"[1-5][0-9][0-9]", value), value
                else:
                    assert value in allowed[name], (sample.name, name, value)

    # The app's spans: allow-listed keys only, and no canary in anything exported.
    spans = exporter.get_finished_spans()
    trace_ids = {f"{s.context.trace_id:032x}" for s in spans if s.context is not None}
    assert len([s for s in spans if s.kind.name == "SERVER"]) >= 8
    for span in spans:
        attributes = dict(span.attributes or {})
        urls = URL_ATTRIBUTES if "urllib3" in str(span.instrumentation_scope) else set()
        assert set(attributes) <= ALLOWED_ATTRIBUTES | urls, (span.name, set(attributes))
        exported = [span.name, span.status.description or "", *map(str, attributes.values())]
        exported += [f"{e.name} {dict(e.attributes or {})}" for e in span.events]
        for canary in CANARIES:
            assert all(canary not in part for part in exported), (canary, span.name)
    # OPA's own spans of the same traces.
    received = collector.wait_for(lambda got: any(r.trace_id in trace_ids for r in got))
    for opa_span in (r for r in received if r.trace_id in trace_ids):
        parts = [opa_span.name, opa_span.status_message, *map(str, opa_span.attributes.values())]
        parts += [f"{name} {attributes}" for name, attributes in opa_span.events]
        for canary in CANARIES:
            assert all(canary not in part for part in parts), (canary, opa_span.name)
