"""The benchmark's plug-in parts: their options, their order and how sections are joined."""

from __future__ import annotations

import argparse
from typing import Any, cast

import pytest

from tests.load import options, overhead, parts
from tests.support.services import PostgresCluster

_BENCH = parts.BenchRun(
    cluster=cast(PostgresCluster, None),
    opa_url="http://127.0.0.1:1",
    database_url="postgresql://127.0.0.1:1/bench",
    run_id="run",
    token="tok-lotse",
    decision_input={},
)


def _part(name: str, result: str | None, ran: list[str]) -> parts.Part[str]:
    def run(_bench: parts.BenchRun, _args: argparse.Namespace) -> str | None:
        ran.append(name)
        return result

    return parts.Part(name, lambda _parser: None, run, lambda value: f"## {value}\n")


def test_every_part_adds_its_options_to_the_bench_command_line() -> None:
    parser = options.parser("benchmark")
    own = {action.dest for action in parser._actions}
    for part in parts.PARTS:
        alone = argparse.ArgumentParser()
        part.add_arguments(alone)
        added = {action.dest for action in alone._actions} - {"help"}
        assert added, part.name
        assert added <= own, part.name


def test_the_overhead_section_stays_last_since_its_standalone_run_replaces_the_end() -> None:
    assert parts.PARTS[-1].section is overhead.overhead_section


def test_parts_run_in_order_and_only_those_that_ran_add_a_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []
    fakes: tuple[parts.Part[Any], ...] = (
        _part("first", "one", ran),
        _part("skipped", None, ran),
        _part("last", "two", ran),
    )
    monkeypatch.setattr(parts, "PARTS", fakes)

    sections = parts.run_parts(_BENCH, argparse.Namespace())

    assert ran == ["first", "skipped", "last"]
    assert sections == "\n## one\n\n## two\n"


def test_no_part_runs_when_every_part_is_set_to_zero_rounds() -> None:
    args = options.parser("benchmark").parse_args(
        [
            "--rate-limit-rounds",
            "0",
            "--bounds-rounds",
            "0",
            "--provenance-rounds",
            "0",
            "--transport-rounds",
            "0",
            "--overhead-rounds",
            "0",
        ]
    )

    assert parts.run_parts(_BENCH, args) == ""
