"""Fuzzing the whole contract with schemathesis against the real service (issue 7).

The service runs as in every integration test (real PostgreSQL and OPA, uvicorn on
127.0.0.1) with the demo world ``examples/demo-world.yaml`` loaded and rate limits
off. schemathesis reads the served spec (``/openapi.json``) and tests every
operation it finds, in its examples, coverage (undeclared methods, boundary values)
and fuzzing phases, positive and negative, with a fixed seed and a bounded number of
examples. Its configuration is derived, never listed by hand:

* each path parameter ``<name>_id`` (and each top-level body property of that name)
  draws from the ids of the table ``<name>s`` (or ``..._<name>s``) of the world, so
  requests reach real resources (a table the world leaves empty gets generated ids);
  an operation added later with such a parameter is covered the same way;
* operations of the ``agent_runtime`` rate-limit class run with the agent's token
  (``tok-lotse``), every other one with the owner's (``tok-robin``).

The run fails on any 5xx, any response that does not match the spec, an
undeclared method not answered 405 with ``Allow``, a 422 for a schema-valid request
that the operation does not declare (``tests/support/fuzz_hooks.py``), and a Problem
body whose correlation id differs from its header. The hooks also send every JSON body
under a media type in one of several letter cases, and a sample of the cases again with
a trailing slash, which must be 404 Problem JSON without a redirect (issue 19); the run
takes about as long as without them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.config import SCHEMA
from app.http.routes import load_spec
from tests.support.services import REPO_ROOT
from tests.support.world import demo_world, load

pytestmark = pytest.mark.integration

SEED = 20261129
MAX_EXAMPLES = 100
OWNER_TOKEN = "tok-robin"
AGENT_TOKEN = "tok-lotse"
AGENT_CLASS = "agent_runtime"
RUNNER_TOKEN = "tok-runner-1"
RUNNER_CLASS = "runner"
# Parameters whose name does not lead to their table by the ``<x>_id`` -> ``<x>s`` rule.
SOURCES = {
    "agent_id": "SELECT id::text FROM principals WHERE kind = 'agent' ORDER BY id LIMIT 8",
    "session_id": (
        "SELECT session_id FROM session_bindings WHERE session_id IS NOT NULL "
        "ORDER BY session_id LIMIT 8"
    ),
    "provider_id": "SELECT provider_id FROM provider_policies ORDER BY provider_id LIMIT 8",
    "task_key": "SELECT task_key FROM task_policies ORDER BY task_key LIMIT 8",
}
# Principals whose tokens drive the run: disabling them would silence the rest of it.
DRIVERS = ("robin", "lotse")


def _id_parameters(spec: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Names of uuid path parameters and of top-level uuid body properties ``*_id``."""
    path_names: set[str] = set()
    body_names: set[str] = set()
    components = spec["components"]
    for item in spec["paths"].values():
        for parameter in item.get("parameters", []):
            resolved = components["parameters"][parameter["$ref"].rsplit("/", 1)[-1]]
            if resolved["in"] == "path":
                path_names.add(resolved["name"])
        for operation in item.values():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            for media in operation["requestBody"]["content"].values():
                schema = components["schemas"][media["schema"]["$ref"].rsplit("/", 1)[-1]]
                for name, prop in schema.get("properties", {}).items():
                    if name.endswith("_id") and prop.get("format") == "uuid":
                        body_names.add(name)
    return path_names, body_names


def _table_for(name: str, tables: set[str]) -> str | None:
    plural = name.removesuffix("_id") + "s"
    if plural in tables:
        return plural
    matches = sorted(table for table in tables if table.endswith("_" + plural))
    return matches[0] if len(matches) == 1 else None


def _config(sql: Any, spec: dict[str, Any]) -> dict[str, Any]:
    tables = {
        row[0]
        for row in sql(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    }
    path_names, body_names = _id_parameters(spec)
    dictionaries: dict[str, Any] = {}
    parameters: dict[str, Any] = {}
    for location, names in (("path", path_names), ("body", body_names)):
        for name in sorted(names):
            if name in SOURCES:
                table, rows = name, sql(SOURCES[name])
            else:
                found = _table_for(name, tables)
                if found is None:
                    assert location == "body", f"no table for path parameter {name}"
                    continue
                table = found
                skip = "WHERE handle NOT IN :drivers" if table == "principals" else ""
                rows = sql(
                    f"SELECT id::text FROM {table} {skip} ORDER BY id LIMIT 8", drivers=DRIVERS
                )
            if not rows:
                continue  # the world has none: generated ids (404) are all there is
            dictionaries[table] = {"values": [row[0] for row in rows]}
            parameters[f"{location}.{name}"] = {
                "dictionary": table,
                "probability": 1.0 if location == "path" else 0.5,
            }
    tokens = {AGENT_CLASS: AGENT_TOKEN, RUNNER_CLASS: RUNNER_TOKEN}
    agent_operations = [
        {
            "include-operation-id": operation["operationId"],
            "headers": {"Authorization": f"Bearer {tokens[operation['x-rate-limit-class']]}"},
        }
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and operation.get("x-rate-limit-class") in tokens
    ]
    return {
        "seed": SEED,
        "workers": 2,
        "hooks": "tests.support.fuzz_hooks",
        "headers": {"Authorization": f"Bearer {OWNER_TOKEN}"},
        "generation": {"max-examples": MAX_EXAMPLES, "mode": "all"},
        "phases": {"stateful": {"enabled": False}},
        # No crash cache: a run replays nothing from an earlier one (reproducible).
        "cache": {"enabled": False},
        "checks": {
            # A documented semantic 422 is policed by fuzz_hooks.documented_semantic_422.
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "401", "403", "404", "409", "422"]
            },
        },
        "dictionaries": dictionaries,
        "parameters": parameters,
        "operations": agent_operations,
    }


def _inline(value: Any) -> str:
    """A TOML inline value (JSON's strings, numbers and booleans are TOML's too)."""
    if isinstance(value, dict):
        pairs = ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items())
        return "{ " + pairs + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return json.dumps(value)


def _toml(config: dict[str, Any]) -> str:
    """The config as TOML: top-level keys, then one table per section, then operations."""
    lines = [
        f"{json.dumps(key)} = {_inline(config[key])}"
        for key in ("seed", "workers", "hooks", "headers")
    ]
    sections = (("generation", None), ("phases", "stateful"), ("cache", None), ("checks", None))
    for section, key in sections:
        body = config[section] if key is None else config[section][key]
        name = section if key is None else f"{section}.{key}"
        if section == "checks":
            for check, settings in body.items():
                lines.append(f"[checks.{check}]")
                lines += [f"{json.dumps(k)} = {_inline(v)}" for k, v in settings.items()]
            continue
        lines.append(f"[{name}]")
        lines += [f"{json.dumps(k)} = {_inline(v)}" for k, v in body.items()]
    for name, dictionary in config["dictionaries"].items():
        lines.append(f"[dictionaries.{name}]")
        lines.append(f"values = {_inline(dictionary['values'])}")
    lines.append("[parameters]")
    lines += [f"{json.dumps(k)} = {_inline(v)}" for k, v in config["parameters"].items()]
    for operation in config["operations"]:
        lines.append("[[operations]]")
        lines += [f"{json.dumps(k)} = {_inline(v)}" for k, v in operation.items()]
    return "\n".join(lines) + "\n"


def test_schemathesis_finds_no_failure_in_any_operation(
    make_service: Any, database_url: str, tmp_path: Path, sql: Any
) -> None:
    load(database_url, demo_world())
    limits = {key.name: 0 for key in SCHEMA if key.name.endswith(".per_minute")}
    service = make_service(**limits)
    spec = load_spec()
    config = tmp_path / "schemathesis.toml"
    config.write_text(_toml(_config(sql, spec)), encoding="utf-8")

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(config),
            "--no-color",
            "run",
            f"{service.base_url}/openapi.json",
            "--checks",
            "all",
        ],
        # Run outside the checkout so nothing schemathesis writes lands in it.
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-30000:]
    # Every operation of the spec was exercised (a new one is picked up on its own).
    operations = sum(
        1 for item in spec["paths"].values() for op in item.values() if isinstance(op, dict)
    )
    tested = re.search(r"Tested:\s+(\d+)", output)
    assert tested is not None, output[-3000:]
    assert int(tested.group(1)) == operations, output[-3000:]
