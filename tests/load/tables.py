"""The markdown tables of the report (latencies, costs, statements, OPA timers,
hot operations, the profile)."""

from __future__ import annotations

from tests.load.costs import Cost, OpaTimers
from tests.load.measure import Result
from tests.load.names import INTERLEAVED_PAIRS
from tests.load.profiling import Profile
from tests.load.world import REFERENCE


def count_text(value: float) -> str:
    return str(round(value)) if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def ms_text(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def results_table(results: list[Result], opa_by_c: dict[int, Result]) -> str:
    """The main table: latency percentiles, throughput and ratio to bare OPA."""
    lines = [
        "| case | earlier messages | concurrency | requests | p50 ms | p95 ms | p99 ms "
        "| req/s | p50 / bare OPA p50 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    by_name = {r.name: r for r in results}
    for result in results:
        paired = INTERLEAVED_PAIRS.get(result.name)
        bare = by_name.get(paired) if paired else opa_by_c.get(result.concurrency)
        ratio = (
            f"{result.percentile(50) / bare.percentile(50):.1f}x"
            if bare is not None
            and (result.name.startswith("getRunContext") or result.name in INTERLEAVED_PAIRS)
            else ""
        )
        size = str(result.size) if result.size is not None else ""
        requests_done = f"{len(result.latencies_ms)}" + (" (time cap)" if result.capped else "")
        lines.append(
            f"| {result.name} | {size} | {result.concurrency} | {requests_done} "
            f"| {ms_text(result.percentile(50))} | {ms_text(result.percentile(95))} "
            f"| {ms_text(result.percentile(99))} | {result.rps:.0f} | {ratio} |"
        )
    return "\n".join(lines)


def costs_table(costs: dict[int, Cost]) -> str:
    """Round trips and response shape per thread size."""
    lines = [
        "| earlier messages | OPA round trips | SQL statements (app counter) "
        "| statements PostgreSQL received | PostgreSQL server time ms | thread_context "
        "| channel_context | cut elements | truncated_before_seq | response bytes |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for cost in costs.values():
        lines.append(
            f"| {cost.size} | {cost.opa_calls} | {cost.sql_statements} "
            f"| {len(cost.pg_statements)} | {cost.pg_ms:.2f} "
            f"| {cost.thread_items} | {cost.channel_items} | {cost.cut_items} "
            f"| {cost.truncated_before_seq if cost.truncated_before_seq is not None else '-'} "
            f"| {cost.response_bytes} |"
        )
    return "\n".join(lines)


def statements_table(cost: Cost) -> str:
    """Every statement PostgreSQL received for one request, with its server time."""
    lines = ["| # | server ms (median) | statement (start, tables) |", "| ---: | ---: | --- |"]
    for index, (ms, label) in enumerate(cost.pg_statements, 1):
        lines.append(f"| {index} | {ms:.3f} | `{label}` |")
    return "\n".join(lines)


def opa_table(timers: list[OpaTimers]) -> str:
    """OPA's own timers per path."""
    lines = [
        "| path | input bytes | OPA handler ms | of which input parse ms "
        "| of which evaluation ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for timer in timers:
        lines.append(
            f"| `{timer.path}` | {timer.input_bytes} | {timer.handler_ms:.3f} "
            f"| {timer.input_parse_ms:.3f} | {timer.eval_ms:.3f} |"
        )
    return "\n".join(lines)


def profile_section(profile: Profile, http_p50: float | None) -> str:
    """Buckets, top cumulative and top own-time entries of the profile."""
    total = sum(ms for _, ms in profile.buckets)
    other = total - profile.pg_ms - profile.opa_wait_ms
    lines = [
        f"{profile.requests} requests of the {REFERENCE}-message case, one at a time, "
        "in-process: "
        f"{profile.plain_ms:.2f} ms per request without the profiler, "
        f"{profile.profiled_ms:.2f} ms under cProfile (the profiler inflates Python calls, "
        "not waits, so Python's share below is an upper bound). Not in the profile: "
        "uvicorn's HTTP parsing, the hop to the thread pool and the client"
        + (
            f"; for comparison, the same case over HTTP has p50 {http_p50:.2f} ms."
            if http_p50 is not None
            else "."
        ),
        "",
        f"Per request under the profiler: PostgreSQL (driver calls including the wait) "
        f"{profile.pg_ms:.2f} ms, OPA socket I/O (including the wait) "
        f"{profile.opa_wait_ms:.2f} ms, everything else (Python in this process) "
        f"{other:.2f} ms = {100 * other / total:.0f}% of {total:.2f} ms.",
        "",
        "Where the time of one request goes (ms per request under the profiler):",
        "",
        "| part | ms / request | share of the request |",
        "| --- | ---: | ---: |",
    ]
    for name, ms in profile.parts:
        lines.append(f"| {name} | {ms:.2f} | {100 * ms / profile.request_ms:.0f}% |")
    lines += [
        "",
        "Own time grouped by package (ms per request):",
        "",
        "| where | ms / request | share |",
        "| --- | ---: | ---: |",
    ]
    for name, ms in profile.buckets[:16]:
        lines.append(f"| {name} | {ms:.3f} | {100 * ms / total:.1f}% |")
    lines += [
        "",
        "Top entries by cumulative time from the handler down (ms per request; the event "
        "loop and the middleware chain above the handler span the whole request, "
        f"{profile.request_ms:.2f} ms, and are left out):",
        "",
        "| function | calls / request | own ms | cumulative ms |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, calls, own, cum in profile.cumulative[:30]:
        lines.append(f"| `{name}` | {count_text(calls)} | {own:.3f} | {cum:.3f} |")
    lines += [
        "",
        "Top entries by own time (ms per request):",
        "",
        "| function | calls / request | own ms | cumulative ms |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, calls, own, cum in profile.own:
        lines.append(f"| `{name}` | {count_text(calls)} | {own:.3f} | {cum:.3f} |")
    return "\n".join(lines)


def interleaved_ratios(rounds: list[Result] | None) -> tuple[float, float] | None:
    """(op / bare decision, op / trivial policy) p50 ratios of one interleaved block."""
    if not rounds:
        return None
    op, bare, trivial = (r.percentile(50) for r in rounds)
    return op / bare, op / trivial


def operations_table(
    results: list[Result],
    costs: dict[str, tuple[float, float]],
    trivial_by_c: dict[int, Result],
    interleaved: dict[str, list[Result]],
    opa_by_c: dict[int, Result],
) -> str:
    """Every hot operation: percentiles, ratios to both floors, round trips."""
    lines = [
        "| operation | concurrency | requests | p50 ms | p99 ms | req/s "
        "| p50 / bare `authz/decision` p50 | p50 / trivial policy p50 "
        "| interleaved: / `authz/decision` | interleaved: / trivial policy "
        "| OPA round trips | SQL statements |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        bare, trivial = opa_by_c[result.concurrency], trivial_by_c[result.concurrency]
        opa_calls, statements = costs[result.name]
        ratios = interleaved_ratios(interleaved.get(result.name))
        paired = (
            f"{ratios[0]:.1f}x | {ratios[1]:.1f}x"
            if ratios is not None and result.concurrency == 1
            else " | "
        )
        lines.append(
            f"| {result.name} | {result.concurrency} | {len(result.latencies_ms)}"
            + (" (time cap)" if result.capped else "")
            + f" | {ms_text(result.percentile(50))} | {ms_text(result.percentile(99))} "
            f"| {result.rps:.0f} | {result.percentile(50) / bare.percentile(50):.1f}x "
            f"| {result.percentile(50) / trivial.percentile(50):.1f}x | {paired} "
            f"| {count_text(opa_calls)} | {count_text(statements)} |"
        )
    return "\n".join(lines)
