"""The README's adapter example runs as written against the demo world."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.services import REPO_ROOT
from tests.support.world import demo_world, load

pytestmark = pytest.mark.integration


def _examples() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Comms relay and adapter SDK", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 2
    return blocks


def test_the_readme_adapter_example_runs_against_the_demo_world(
    make_service: Callable[..., Any],
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = load(database_url, demo_world())
    service = make_service()
    world_json = tmp_path / "world.json"
    world_json.write_text(json.dumps(ids), encoding="utf-8")
    monkeypatch.setenv("AGENT_AUTHZ_URL", service.base_url)
    monkeypatch.setenv("WORLD_JSON", str(world_json))
    namespace: dict[str, Any] = {}
    output = io.StringIO()

    with contextlib.redirect_stdout(output):
        for block in _examples():
            exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102

    printed = output.getvalue()
    assert "Posted message " in printed
    assert "to (home channel)" in printed
    assert "Looking into the export." in printed
    assert '"name": "comms_list_messages"' in printed
    assert namespace["context"].has_request
    assert printed.count("Channel messages, oldest first.") == 2
    # The run was bound first: the ledger, out of Alex's reach, is refused for her run.
    assert "comms_list_messages failed: forbidden (acting_for_exceeded)" in printed
