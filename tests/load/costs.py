"""What one getRunContext request costs: OPA calls, SQL statements (the app's counters
and PostgreSQL's log) and OPA's own timers."""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.main import Application
from tests.load.measure import REQUEST_TIMEOUT, BenchError, keepalive_session
from tests.load.processes import app_thread
from tests.load.world import AGENT_TOKEN
from tests.support.services import PostgresCluster, run_sql

COUNTED_REQUESTS = 9


@dataclass
class Cost:
    """What one getRunContext request of a thread size costs and returns."""

    size: int
    opa_calls: int
    sql_statements: int
    pg_statements: list[tuple[float, str]]
    thread_items: int
    channel_items: int
    truncated_before_seq: int | None
    cut_items: int
    response_bytes: int
    inputs: dict[str, dict[str, Any]] = field(repr=False, default_factory=dict)

    @property
    def pg_ms(self) -> float:
        """Server-side execution time of all statements of the request."""
        return sum(ms for ms, _ in self.pg_statements)


_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[\d+\] ", re.M)
_DURATION = re.compile(r"LOG:  duration: ([0-9.]+) ms  statement: (.*)", re.S)
_UUID = re.compile(r"'?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'?(::uuid)?")


def _statement_label(sql: str) -> str:
    """A short, content-free label of a logged statement."""
    text = " ".join(sql.split())
    text = _UUID.sub("<id>", text)
    text = re.sub(r"ARRAY\[[^\]]*\]", "ARRAY[...]", text)
    tables = re.findall(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)", text)
    seen: list[str] = []
    for table in tables:
        if table not in seen and table not in {"w", "p", "pg", "c", "page"}:
            seen.append(table)
    head = text[:48]
    return f"{head}{'...' if len(text) > 48 else ''}" + (
        f" [{', '.join(seen[:6])}]" if seen else ""
    )


def _pg_statements_logged(log_path: Path, offset: int) -> list[tuple[float, str]]:
    with log_path.open("rb") as log:
        log.seek(offset)
        text = log.read().decode("utf-8", errors="replace")
    entries: list[tuple[float, str]] = []
    for chunk in _LOG_LINE.split(text):
        match = _DURATION.match(chunk.strip())
        if match:
            entries.append((float(match.group(1)), _statement_label(match.group(2))))
    return entries


def _median_statements(entries: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """Split the log of :data:`COUNTED_REQUESTS` equal requests; median time per statement."""
    per_request, rest = divmod(len(entries), COUNTED_REQUESTS)
    if rest or not per_request:
        raise BenchError(f"{len(entries)} logged statements for {COUNTED_REQUESTS} requests")
    requests_ = [entries[i * per_request : (i + 1) * per_request] for i in range(COUNTED_REQUESTS)]
    labels = [label for _, label in requests_[0]]
    if any([label for _, label in r] != labels for r in requests_):
        raise BenchError("requests of one size sent different statements")
    return [(statistics.median(r[i][0] for r in requests_), labels[i]) for i in range(per_request)]


def measure_costs(
    app: Application, cluster: PostgresCluster, runs: dict[int, str]
) -> dict[int, Cost]:
    """Per size: OPA calls, SQL statements (app counters and PostgreSQL's log) of one request.

    :data:`COUNTED_REQUESTS` requests per size are counted; PostgreSQL logs every
    statement with its server-side duration (``log_min_duration_statement = 0``) during
    them only, and the median per statement is kept. The OPA inputs of the last request
    are kept for the bare OPA measurements.
    """
    services = app.services
    captured: dict[str, dict[str, Any]] = {}
    original_evaluate = services.opa.evaluate

    # The policy gateway's one call into the client (it asks for provenance).
    def recording_evaluate(path: str, input: dict[str, Any], *, correlation_id: str = "") -> Any:
        captured[path] = input
        return original_evaluate(path, input, correlation_id=correlation_id)

    services.opa.evaluate = recording_evaluate  # type: ignore[method-assign]
    log_path = cluster.datadir / "server.log"
    costs: dict[int, Cost] = {}
    try:
        with app_thread(app) as base_url, keepalive_session() as session:
            headers = {"Authorization": f"Bearer {AGENT_TOKEN}"}
            for size, run_id in runs.items():
                url = f"{base_url}/api/v1/runs/{run_id}/context"
                for _ in range(3):  # warm: pool connections, first-use statements
                    session.get(url, headers=headers, timeout=REQUEST_TIMEOUT).raise_for_status()
                run_sql(
                    cluster.admin_url,
                    "ALTER SYSTEM SET log_min_duration_statement = 0",
                    "SELECT pg_reload_conf()",
                )
                time.sleep(0.3)
                offset = log_path.stat().st_size
                opa_before, sql_before = services.opa.calls, services.sql_statements
                for _ in range(COUNTED_REQUESTS):
                    captured.clear()
                    response = session.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
                    response.raise_for_status()
                opa_calls, opa_rest = divmod(services.opa.calls - opa_before, COUNTED_REQUESTS)
                sql, sql_rest = divmod(services.sql_statements - sql_before, COUNTED_REQUESTS)
                if opa_rest or sql_rest:
                    raise BenchError("requests of one size differ in OPA calls or statements")
                time.sleep(0.3)
                pg = _median_statements(_pg_statements_logged(log_path, offset))
                run_sql(
                    cluster.admin_url,
                    "ALTER SYSTEM RESET log_min_duration_statement",
                    "SELECT pg_reload_conf()",
                )
                if response.status_code != 200:
                    raise BenchError(
                        f"getRunContext for size {size} answered {response.status_code}"
                    )
                body = response.json()
                elements = [*body["thread_context"], *body.get("channel_context", [])]
                costs[size] = Cost(
                    size=size,
                    opa_calls=opa_calls,
                    sql_statements=sql,
                    pg_statements=pg,
                    thread_items=len(body["thread_context"]),
                    channel_items=len(body.get("channel_context", [])),
                    truncated_before_seq=body.get("truncated_before_seq"),
                    cut_items=sum(1 for e in elements if e.get("truncated")),
                    response_bytes=len(response.content),
                    inputs={
                        path: json.loads(json.dumps(value)) for path, value in captured.items()
                    },
                )
    finally:
        services.opa.evaluate = original_evaluate  # type: ignore[method-assign]
    opa_counts = {cost.opa_calls for cost in costs.values()}
    sql_counts = {cost.sql_statements for cost in costs.values()}
    if opa_counts != {2} or len(sql_counts) != 1:
        raise BenchError(
            f"cost depends on thread length or is not 2 OPA calls: "
            f"{[(c.size, c.opa_calls, c.sql_statements) for c in costs.values()]}"
        )
    return costs


@dataclass
class OpaTimers:
    """OPA's own timers for one path (median of several ``?metrics=true`` calls)."""

    path: str
    input_bytes: int
    handler_ms: float
    eval_ms: float
    input_parse_ms: float


def opa_timers(opa_url: str, path: str, policy_input: dict[str, Any], count: int = 25) -> OpaTimers:
    """Ask OPA how long it spends on ``path`` itself (server handler, parse, evaluation)."""
    body = json.dumps({"input": policy_input}, separators=(",", ":"))
    samples: list[dict[str, float]] = []
    with keepalive_session() as session:
        for _ in range(count):
            response = session.post(
                f"{opa_url}/v1/data/{path}?metrics=true",
                data=body,
                headers={"Content-Type": "application/json"},
                timeout=REQUEST_TIMEOUT,
            )
            response.raise_for_status()
            samples.append(response.json().get("metrics", {}))

    def median(name: str) -> float:
        return statistics.median(sample.get(name, 0) for sample in samples) / 1e6

    return OpaTimers(
        path=path,
        input_bytes=len(body.encode()),
        handler_ms=median("timer_server_handler_ns"),
        eval_ms=median("timer_rego_query_eval_ns"),
        input_parse_ms=median("timer_rego_input_parse_ns"),
    )
