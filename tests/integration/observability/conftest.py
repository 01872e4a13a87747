"""Fixtures of the observability tests: a metered service, its scrapes, traced OPA.

``metered`` starts the app with metrics on (``metrics.port`` set) and its metrics
listener on that port, exactly as ``python -m app serve`` does with one worker;
:func:`scrape` reads ``GET /metrics`` and parses it with ``prometheus_client``'s own
parser. ``collector`` is a stand-in OTLP/HTTP collector and ``traced_opa`` a real OPA
started with the sidecar configuration (``deploy/opa/config.working-tree.yaml``: the
deploy configuration without a bundle service), its distributed tracing pointed at
that collector.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from app.observability.exposition import MetricsListener, exposition_registry, start_listener
from tests.conftest import RunningService
from tests.support.otlp import OtlpReceiver
from tests.support.services import OpaServer, free_port

pytestmark = pytest.mark.integration

Sample = tuple[str, frozenset[tuple[str, str]]]


@dataclass
class Metered:
    """A running service with metrics on, and its listener."""

    service: RunningService
    listener: MetricsListener

    def scrape(self) -> dict[Sample, float]:
        """Every sample of ``GET /metrics``."""
        return scrape(self.listener.url)


def scrape(url: str) -> dict[Sample, float]:
    """Every sample at ``url``, keyed by (sample name, label set)."""
    response = requests.get(url, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/plain")
    samples: dict[Sample, float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def sample(name: str, **labels: str) -> Sample:
    """The key of one sample."""
    return (name, frozenset(labels.items()))


def ours(samples: dict[Sample, float]) -> dict[Sample, float]:
    """The service's own samples (``agent_authz_*``)."""
    return {key: value for key, value in samples.items() if key[0].startswith("agent_authz_")}


def counted(samples: dict[Sample, float]) -> dict[Sample, float]:
    """The non-zero counts: counters and histogram ``_count`` samples, no buckets."""
    return {
        key: value
        for key, value in ours(samples).items()
        if value != 0 and (key[0].endswith("_total") or key[0].endswith("_count"))
    }


@pytest.fixture
def metered(make_service: Callable[..., RunningService]) -> Iterator[Callable[..., Metered]]:
    """Start the app with metrics on and its listener; keyword arguments as make_service."""
    listeners: list[MetricsListener] = []

    def start(**overrides: Any) -> Metered:
        port = free_port()
        service = make_service(**{"metrics.port": port, **overrides})
        metrics = service.app.services.metrics
        assert metrics is not None
        listener = start_listener(exposition_registry(metrics.registry), "127.0.0.1", port)
        listeners.append(listener)
        return Metered(service, listener)

    yield start
    for listener in listeners:
        listener.stop()


@pytest.fixture(scope="module")
def collector() -> Iterator[OtlpReceiver]:
    """A stand-in OTLP/HTTP collector for the module."""
    with OtlpReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def traced_opa(collector: OtlpReceiver) -> Iterator[OpaServer]:
    """OPA with the deploy configuration, its traces going to ``collector``."""
    server = OpaServer(env={"OPA_TRACING_ADDRESS": collector.address}).start()
    yield server
    server.stop()
