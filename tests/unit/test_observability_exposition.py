"""The metrics listener, multiprocess bookkeeping and the pool gauges, without services."""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

import pytest
import requests
from prometheus_client import CollectorRegistry, Counter
from sqlalchemy import create_engine, text

from app.http.routes import load_routes, load_spec
from app.observability.exposition import (
    MULTIPROCESS_ENV,
    ListenerError,
    exposition_registry,
    prepare_multiprocess_directory,
    start_listener,
    sweep_dead_workers,
)
from app.observability.metrics import LabelSets, Metrics
from app.observability.pools import observe_pool, waiting_pool_class


def test_the_live_gauges_of_dead_workers_are_swept_and_nothing_else(tmp_path: Path) -> None:
    for name in (
        "gauge_livesum_101.db",
        "gauge_livesum_202.db",
        "gauge_liveall_101.db",
        "counter_101.db",
        "histogram_101.db",
        "gauge_all_101.db",
    ):
        (tmp_path / name).write_bytes(b"")

    swept = sweep_dead_workers(str(tmp_path), is_alive=lambda pid: pid == 202)

    assert swept == [101]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "counter_101.db",
        "gauge_all_101.db",
        "gauge_livesum_202.db",
        "histogram_101.db",
    ]


def test_one_process_serves_its_registry_and_several_their_files(tmp_path: Path) -> None:
    registry = CollectorRegistry()

    assert exposition_registry(registry, environ={}) is registry
    combined = exposition_registry(registry, environ={MULTIPROCESS_ENV: str(tmp_path)})
    assert combined is not registry
    assert list(combined.collect()) == []


def test_an_operators_directory_is_kept_and_emptied_else_one_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "counter_1.db").write_bytes(b"stale")
    (tmp_path / "README").write_text("kept")
    monkeypatch.setenv(MULTIPROCESS_ENV, str(tmp_path))

    assert prepare_multiprocess_directory() == (str(tmp_path), False)
    assert [p.name for p in tmp_path.iterdir()] == ["README"]

    monkeypatch.delenv(MULTIPROCESS_ENV)
    directory, made = prepare_multiprocess_directory()
    try:
        assert made
        assert os.environ[MULTIPROCESS_ENV] == directory
        assert Path(directory).is_dir()
    finally:
        Path(directory).rmdir()


def test_the_listener_serves_the_text_format_and_refuses_a_busy_port() -> None:
    registry = CollectorRegistry()
    Counter("agent_authz_example", "An example.", registry=registry).inc(2)

    listener = start_listener(registry, "127.0.0.1", 0)
    try:
        response = requests.get(listener.url, timeout=5)
        assert response.status_code == 200
        assert "agent_authz_example_total 2.0" in response.text
        with pytest.raises(ListenerError, match=f"127.0.0.1:{listener.port}"):
            start_listener(registry, "127.0.0.1", listener.port)
    finally:
        listener.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", listener.port)) != 0


def test_the_pool_gauges_follow_checkouts_and_waiting_threads() -> None:
    metrics = Metrics(LabelSets.from_routes(load_routes(load_spec())))
    gauges = metrics.pools["read"]
    seen_waiting: list[float | None] = []
    get = metrics.registry.get_sample_value

    def connect() -> sqlite3.Connection:
        # Called inside Pool.connect: the thread counts as waiting while it runs.
        seen_waiting.append(get("agent_authz_db_pool_waiting", {"pool": "read"}))
        return sqlite3.connect(":memory:")

    engine = create_engine(
        "sqlite://", creator=connect, poolclass=waiting_pool_class(gauges), pool_size=2
    )
    observe_pool(engine, gauges)

    with engine.connect() as first, engine.connect() as second:
        first.execute(text("SELECT 1"))
        second.execute(text("SELECT 1"))
        assert get("agent_authz_db_pool_connections_in_use", {"pool": "read"}) == 2
    assert get("agent_authz_db_pool_connections_in_use", {"pool": "read"}) == 0
    assert get("agent_authz_db_pool_waiting", {"pool": "read"}) == 0
    assert seen_waiting == [1.0, 1.0]
    engine.dispose()
