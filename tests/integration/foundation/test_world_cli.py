"""``python -m app world load FILE``: one transaction, a JSON id map, nothing on error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import func, select

from repositories import make_engine
from repositories.models import Base
from tests.integration.foundation.conftest import extended_world
from tests.support.services import REPO_ROOT

pytestmark = pytest.mark.integration


def _world_load(database_url: str, path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"CONFIG_FILE", "OPA_URL", "PORT"}
    }
    env["DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "-m", "app", "world", "load", str(path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _row_counts(database_url: str) -> dict[str, int]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return {
                table.name: conn.execute(select(func.count()).select_from(table)).scalar_one()
                for table in Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()


def _write(tmp_path: Path, world: dict[str, Any]) -> Path:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(world, sort_keys=False), encoding="utf-8")
    return path


def test_a_valid_world_prints_json_with_every_handle_and_key(
    database_url: str, tmp_path: Path
) -> None:
    world = extended_world()

    result = _world_load(database_url, _write(tmp_path, world))

    assert result.returncode == 0, result.stderr
    mapping = json.loads(result.stdout)
    handles = [
        p["handle"] for section in ("people", "agents", "apps", "runners") for p in world[section]
    ]
    keys = [
        item["key"]
        for section in ("grants", "threads", "sessions", "runs")
        for item in world[section]
    ]
    for name in [
        *handles,
        *keys,
        "support",
        "marketing",
        "support/general",
        "support/general#main",
        "support/archive",
        "m1",
        "m6",
        "a1",
    ]:
        assert name in mapping, name
    counts = _row_counts(database_url)
    assert counts["principals"] == len(handles) - len(world["runners"])
    # The demo world's eight messages and the archive's one.
    assert counts["messages"] == 9


DANGLING = [
    pytest.param(
        ("threads", 0, "messages", 2, "reply_to"),
        "m99",
        "threads[0].messages[2].reply_to",
        id="thread-message-reply-to",
    ),
    pytest.param(
        ("spaces", 0, "channels", 0, "messages", 1, "author"),
        "nobody",
        "spaces[0].channels[0].messages[1].author",
        id="channel-message-author",
    ),
    pytest.param(("runs", 0, "session"), "s99", "runs[0].session", id="run-session"),
    pytest.param(("grants", 3, "subject"), "group:ghosts", "grants[3].subject", id="grant-group"),
    pytest.param(
        ("agents", 1, "home_channel"),
        "marketing/nowhere",
        "agents[1].home_channel",
        id="agent-home-channel",
    ),
    pytest.param(
        ("spaces", 1, "channels", 0, "history_backfill_limit"),
        -1,
        "spaces[1].channels[0].history_backfill_limit",
        id="negative-limit",
    ),
    pytest.param(("sessions", 0, "unknown_key"), True, "sessions[0].unknown_key", id="unknown-key"),
]


@pytest.mark.parametrize(("where", "value", "named"), DANGLING)
def test_a_malformed_world_file_exits_2_names_the_path_and_writes_nothing(
    database_url: str, tmp_path: Path, where: tuple[str | int, ...], value: Any, named: str
) -> None:
    world = extended_world()
    node: Any = world
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value

    result = _world_load(database_url, _write(tmp_path, world))

    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert set(_row_counts(database_url).values()) == {0}


def test_a_world_file_that_is_not_yaml_exits_2(database_url: str, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("people: [{handle: robin\n", encoding="utf-8")

    result = _world_load(database_url, path)

    assert result.returncode == 2
    assert str(path) in result.stderr
    assert set(_row_counts(database_url).values()) == {0}


def test_loading_the_same_world_twice_fails_the_second_time_and_keeps_the_first(
    database_url: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, extended_world())
    assert _world_load(database_url, path).returncode == 0
    first = _row_counts(database_url)

    again = _world_load(database_url, path)

    assert again.returncode == 2, again.stderr
    assert "Traceback" not in again.stderr
    assert _row_counts(database_url) == first


def test_world_errors_do_not_echo_content_or_tokens(database_url: str, tmp_path: Path) -> None:
    world = extended_world()
    secret = "content-canary-91d2"
    world["threads"][0]["messages"][0]["content"] = secret
    world["threads"][0]["messages"][0]["reply_to"] = "m404"
    world["people"][0]["token"] = "tok-canary-token-55"

    result = _world_load(database_url, _write(tmp_path, world))

    assert result.returncode == 2
    assert secret not in result.stderr
    assert "tok-canary-token-55" not in result.stderr
