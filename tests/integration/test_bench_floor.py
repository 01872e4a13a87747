"""The benchmark's I/O floor records a read's round trips and replays them unchanged."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from app.config import load_settings
from app.main import create_app
from tests.load import floor
from tests.load.profiling import asgi_get
from tests.load.world import bench_world
from tests.support.services import OpaServer
from tests.support.world import load

pytestmark = pytest.mark.integration


@pytest.fixture
def recording(database_url: str, opa_server: OpaServer) -> Iterator[floor.Recording]:
    """The round trips of a read of the benchmark's 100 case."""
    ids = load(database_url, bench_world())
    settings = load_settings(environ={}).replace(
        **{"database.url": database_url, "opa.url": opa_server.url}
    )
    app = create_app(settings)
    path = f"/api/v1/runs/{ids['r100']}/context"
    try:
        yield floor.record_read(app, lambda: asgi_get(app, path))
    finally:
        app.services.close()


def test_a_read_is_recorded_as_its_statements_and_opa_calls_in_order(
    recording: floor.Recording,
) -> None:
    # The token lookup, the run's facts, the decision, the candidates, the batch.
    assert [(s.kind, s.target.split("(")[0]) for s in recording.steps] == [
        ("sql", "EXECUTE token_holder"),
        ("sql", "EXECUTE run_context_load"),
        ("opa", "/v1/data/authz/decision?provenance=true"),
        ("sql", "EXECUTE run_context_candidates"),
        ("opa", "/v1/data/runcontext/evaluate?provenance=true"),
    ]
    prepared = sorted(p.split(" ")[1] for p in recording.prepares)
    assert prepared == ["run_context_candidates", "run_context_load", "token_holder"]


def test_the_floor_replays_the_recorded_read_on_raw_drivers(
    recording: floor.Recording, database_url: str, opa_server: OpaServer
) -> None:
    with floor.FloorRead(database_url, opa_server.url, recording) as replay:
        replay()
        replay()


def test_the_floor_fails_when_opa_does_not_answer_a_recorded_call(
    recording: floor.Recording, database_url: str, opa_server: OpaServer
) -> None:
    steps = [
        dataclasses.replace(s, target="/v1/data/no/such/document") if s.kind == "opa" else s
        for s in recording.steps
    ]
    broken = floor.Recording(prepares=recording.prepares, steps=steps)

    with (
        floor.FloorRead(database_url, opa_server.url, broken) as replay,
        pytest.raises(RuntimeError, match="undefined"),
    ):
        replay()
