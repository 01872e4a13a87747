"""Fixtures of the policy impact diff tests: one base OPA for all, edited policy copies."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policydiff.corpus import Record
from policydiff.generate import generate
from policydiff.scratch import ScratchOpa
from tests.support.services import REPO_ROOT

pytestmark = pytest.mark.integration

POLICIES = REPO_ROOT / "policies"
OPA = REPO_ROOT / ".bin" / "opa"

# An edit: (file under policies/, text to replace, replacement).
Edit = tuple[str, str, str]


@pytest.fixture(scope="session")
def generated() -> list[Record]:
    """The generated corpus of the working tree (default seed)."""
    return generate(POLICIES)


@pytest.fixture(scope="session")
def base_opa() -> Iterator[ScratchOpa]:
    """A scratch OPA serving the working tree's policies, shared by every diff test."""
    with ScratchOpa(POLICIES, binary=OPA, name="base") as server:
        yield server


@pytest.fixture
def edited(tmp_path: Path) -> Callable[..., Path]:
    """A copy of policies/ with edits applied; each edit's text must be found once."""

    def apply(*edits: Edit) -> Path:
        copy = tmp_path / "policies"
        shutil.copytree(POLICIES, copy)
        for name, old, new in edits:
            path = copy / name
            text = path.read_text(encoding="utf-8")
            assert text.count(old) == 1, f"{old!r} not found once in {name}"
            path.write_text(text.replace(old, new), encoding="utf-8")
        return copy

    return apply


def select(records: list[Record], *tables: str, **facts: Any) -> list[Record]:
    """The generated records of ``tables`` whose facts have the given values."""
    return [
        record
        for record in records
        if record.label is not None
        and record.label["table"] in tables
        and all(record.label["facts"].get(key) == value for key, value in facts.items())
    ]


def run_policy(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m app policy <args>`` as CI runs it, from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "app", "policy", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
