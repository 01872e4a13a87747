"""Two replicas on one database and one OPA (issue 7): idempotency is shared state.

Two ``python -m app serve`` processes, started as an operator would, serve the same
PostgreSQL database and the same OPA. Concurrent posts with one
``client_request_id`` through both store one message, and every answer names it.
What is per replica (pools; rate-limit windows with memory storage) and what is shared (all data,
idempotency) is described in docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path
from tests.support.client import ApiClient
from tests.support.services import AppProcess, OpaServer

pytestmark = pytest.mark.integration


@contextlib.contextmanager
def _two_replicas(
    database_url: str, opa_url: str, logs: Path, **settings: str
) -> Iterator[list[str]]:
    """Start two ``python -m app serve`` processes; yields their base URLs."""
    # One worker per replica: with memory storage each worker process has rate-limit
    # windows of its own, and this test is about what replicas share.
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "OPA_URL": opa_url,
        "SERVER_WORKERS": "1",
        **settings,
    }
    with contextlib.ExitStack() as stack:
        replicas = [
            stack.enter_context(
                AppProcess.start(("app", "serve"), env, logs / f"replica-{n}.log", name="replica")
            )
            for n in (1, 2)
        ]
        for replica in replicas:
            replica.wait_ready()
        yield [replica.base_url for replica in replicas]


@pytest.fixture
def replicas(
    database_url: str, opa_server: OpaServer, ids: dict[str, str], tmp_path: Path
) -> Iterator[list[str]]:
    """Two app processes on this test's database and the session's OPA."""
    with _two_replicas(
        database_url, opa_server.url, tmp_path, RATE_LIMIT_CHAT_PER_MINUTE="0"
    ) as urls:
        yield urls


def test_concurrent_posts_with_one_key_through_two_replicas_store_one_message(
    replicas: list[str], ids: dict[str, str], sql: Any
) -> None:
    general = messages_path(ids["support/general"])
    key = "two-replicas-status-note"
    rounds = 8
    barrier = threading.Barrier(rounds)
    answers: list[Any] = [None] * rounds

    def post(index: int) -> None:
        client = ApiClient(replicas[index % 2], "tok-sam")
        barrier.wait()
        answers[index] = client.post(
            general, json={"content_md": f"Status note, copy {index}", "client_request_id": key}
        )

    threads = [threading.Thread(target=post, args=(i,)) for i in range(rounds)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] * (rounds - 1) + [201]
    stored = sql("SELECT id::text, content_md FROM messages WHERE client_request_id = :k", k=key)
    assert len(stored) == 1
    assert {answer.json()["id"] for answer in answers} == {stored[0][0]}
    assert {answer.json()["content_md"] for answer in answers} == {stored[0][1]}


def test_with_memory_storage_each_replica_keeps_its_own_rate_limit_window(
    database_url: str, opa_server: OpaServer, ids: dict[str, str], tmp_path: Path
) -> None:
    # rate_limit.storage memory:// (the default); with Redis the window is shared
    # (test_rate_limit_shared.py).
    path = f"/api/v1/runs/{ids['r1']}/context"
    with _two_replicas(
        database_url,
        opa_server.url,
        tmp_path,
        RATE_LIMIT_AGENT_RUNTIME_PER_MINUTE="1",
        RATE_LIMIT_STORAGE="memory://",
    ) as urls:
        first = [ApiClient(url, "tok-lotse").get(path).status_code for url in urls]
        second = [ApiClient(url, "tok-lotse").get(path).status_code for url in urls]

    assert first == [200, 200]  # each replica has its own window
    assert second == [429, 429]
