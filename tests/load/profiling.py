"""cProfile of the reference case, driven in-process on one thread through the ASGI app."""

from __future__ import annotations

import asyncio
import cProfile
import io
import os
import pstats
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.main import Application
from tests.load.measure import BenchError
from tests.load.world import AGENT_TOKEN
from tests.support.services import REPO_ROOT


async def asgi_get(app: Application, path: str) -> tuple[int, bytes]:
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"accept", b"*/*"),
            (b"authorization", f"Bearer {AGENT_TOKEN}".encode()),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
    }
    received = False
    status = 0
    body = bytearray()

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            return {"type": "http.disconnect"}
        received = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(body)


@dataclass
class Profile:
    """cProfile of the slowest case, driven in-process on one thread."""

    requests: int
    plain_ms: float
    profiled_ms: float
    stats: pstats.Stats
    buckets: list[tuple[str, float]]
    cumulative: list[tuple[str, float, float, float]]
    own: list[tuple[str, float, float, float]]
    opa_wait_ms: float
    pg_ms: float
    request_ms: float
    handler_ms: float
    parts: list[tuple[str, float]]


_Key = tuple[str, int, str]
_Entry = tuple[int, int, float, float, dict[_Key, tuple[int, int, float, float]]]


def _find(raw: dict[_Key, _Entry], file_suffix: str, name: str) -> _Key:
    for key in raw:
        if key[0].endswith(file_suffix) and key[2] == name:
            return key
    raise BenchError(f"{file_suffix}:{name} is not in the profile")


def _callee_time(raw: dict[_Key, _Entry], parent: _Key, where: Callable[[_Key], bool]) -> float:
    """Cumulative time of ``parent``'s direct callees selected by ``where``."""
    return sum(
        entry[4][parent][3] for key, entry in raw.items() if parent in entry[4] and where(key)
    )


def _parts(
    raw: dict[_Key, _Entry], request: float, pg: float, opa_wait: float
) -> list[tuple[str, float]]:
    """Where one request's time goes, as disjoint parts (seconds over all requests)."""
    handler = _find(raw, "app/handlers/runs.py", "get_run_context")
    use_case = _find(raw, "app/usecases/run_context.py", "__call__")
    begin = _find(raw, "app/handlers/common.py", "begin")
    respond = _find(raw, "app/handlers/common.py", "json_response")
    query = _find(raw, "app/opa_client.py", "evaluate")
    handler_s, use_case_s = raw[handler][3], raw[use_case][3]
    begin_s, respond_s, opa_s = raw[begin][3], raw[respond][3], raw[query][3]
    repositories = str(REPO_ROOT / "repositories") + os.sep
    sql_s = begin_s + _callee_time(raw, use_case, lambda key: key[0].startswith(repositories))
    return [
        (
            "Connexion and Starlette middleware, correlation id and services wrappers "
            "(outside the handler)",
            request - handler_s,
        ),
        (
            "SQL: token lookup, run with the actor's facts, trigger with both windows and "
            "follow-ups, the authors' facts (SQLAlchemy and psycopg2)",
            sql_s,
        ),
        ("  of which psycopg2 calls (PostgreSQL's work and the wait)", pg),
        ("  of which SQLAlchemy, pool, rows and typecasting in Python", sql_s - pg),
        ("OPA: two calls (`OpaClient.evaluate`)", opa_s),
        ("  of which socket send/receive (OPA's work and the wait)", opa_wait),
        ("  of which the client in Python (transport, HTTP parsing, orjson)", opa_s - opa_wait),
        (
            "Use case besides SQL and OPA: planning, input building, shaping, element assembly",
            use_case_s - (sql_s - begin_s) - opa_s,
        ),
        ("Response encoding (`json_response`: orjson)", respond_s),
        (
            "Python outside PostgreSQL and OPA (the request less the two waits)",
            request - pg - opa_wait,
        ),
    ]


def _short(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name
    path = filename
    marker = "site-packages/"
    if marker in path:
        path = path.split(marker, 1)[1]
    elif path.startswith(str(REPO_ROOT)):
        path = path[len(str(REPO_ROOT)) + 1 :]
    else:
        path = Path(path).name
    return f"{path}:{line}({name})"


def _bucket(key: tuple[str, int, str]) -> str:
    filename, _, name = key
    if filename == "~":
        if "psycopg2" in name:
            return "PostgreSQL: psycopg2 execute/commit/rollback (network wait included)"
        if "select.epoll" in name:
            # The event loop's selector: the in-process ASGI calls wait here, not on OPA.
            return "event loop: selector (asyncio)"
        if "_socket.socket" in name or "select.poll" in name:
            # Only the OPA transport uses Python sockets (psycopg2 talks to PostgreSQL in C);
            # select.poll is its check for a connection OPA dropped while it was idle.
            return "OPA: socket send/receive (network wait included)"
        if "_json" in name or "json" in name:
            return "json (C accelerator)"
        return "builtins (C: str, dict, regex, hashing, ...)"
    marker = "site-packages/"
    if marker in filename:
        package = filename.split(marker, 1)[1].split("/", 1)[0]
        return f"{package}"
    if filename.startswith(str(REPO_ROOT)):
        parts = Path(filename).relative_to(REPO_ROOT).parts
        return "/".join(parts[:2]) if parts[0] == "app" and len(parts) > 2 else parts[0]
    return f"stdlib {Path(filename).stem}"


def profile_case(app: Application, run_id: str, count: int) -> Profile:
    """Profile ``count`` getRunContext requests of one run, one at a time, in-process."""
    import connexion.decorators.main as connexion_main

    async def inline(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    path = f"/api/v1/runs/{run_id}/context"
    original = connexion_main.run_in_threadpool
    connexion_main.run_in_threadpool = inline
    loop = asyncio.new_event_loop()
    try:

        async def many(n: int) -> None:
            for _ in range(n):
                status, _body = await asgi_get(app, path)
                if status != 200:
                    raise BenchError(f"in-process getRunContext answered {status}")

        loop.run_until_complete(many(30))
        begin = time.perf_counter()
        loop.run_until_complete(many(count))
        plain_ms = (time.perf_counter() - begin) * 1000 / count
        profiler = cProfile.Profile()
        begin = time.perf_counter()
        profiler.enable()
        loop.run_until_complete(many(count))
        profiler.disable()
        profiled_ms = (time.perf_counter() - begin) * 1000 / count
    finally:
        loop.close()
        connexion_main.run_in_threadpool = original
    stats = pstats.Stats(profiler, stream=io.StringIO())
    raw: dict[_Key, _Entry] = stats.stats  # type: ignore[attr-defined]
    total_own = sum(entry[2] for entry in raw.values())
    buckets: dict[str, float] = {}
    for key, (_cc, _nc, own, _cum, _callers) in raw.items():
        buckets[_bucket(key)] = buckets.get(_bucket(key), 0.0) + own
    ordered = sorted(buckets.items(), key=lambda item: -item[1])
    scale = 1000 / count
    # Leave out the pass-through chain (event loop, middlewares) whose cumulative time
    # is the whole request: what remains shows where the handler's time goes.
    request_ms = raw[_find(raw, "tests/load/profiling.py", "asgi_get")][3] * scale
    handler_ms = raw[_find(raw, "app/handlers/runs.py", "get_run_context")][3] * scale
    by_cum = sorted(
        (item for item in raw.items() if item[1][3] * scale <= handler_ms),
        key=lambda item: -item[1][3],
    )
    by_own = sorted(raw.items(), key=lambda item: -item[1][2])
    pg_ms = sum(own for name, own in ordered if name.startswith("PostgreSQL")) * scale
    opa_ms = sum(own for name, own in ordered if name.startswith("OPA")) * scale
    assert total_own > 0
    parts = _parts(raw, request_ms / scale, pg_ms / scale, opa_ms / scale)
    return Profile(
        requests=count,
        plain_ms=plain_ms,
        profiled_ms=profiled_ms,
        stats=stats,
        buckets=[(name, own * scale) for name, own in ordered],
        cumulative=[(_short(k), v[1] / count, v[2] * scale, v[3] * scale) for k, v in by_cum[:40]],
        own=[(_short(k), v[1] / count, v[2] * scale, v[3] * scale) for k, v in by_own[:20]],
        opa_wait_ms=opa_ms,
        pg_ms=pg_ms,
        request_ms=request_ms,
        handler_ms=handler_ms,
        parts=[(name, seconds * scale) for name, seconds in parts],
    )
