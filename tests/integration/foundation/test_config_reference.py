"""The generated configuration reference matches the schema."""

from __future__ import annotations

import subprocess
import sys

from app.__main__ import REFERENCE
from app.config import SCHEMA, render_reference
from tests.support.services import REPO_ROOT


def _config_doc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "config-doc", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_configuration_reference_is_current() -> None:
    result = _config_doc("--check")

    assert result.returncode == 0, result.stderr
    assert REFERENCE.read_text(encoding="utf-8") == render_reference()


def test_config_doc_prints_every_key_and_its_environment_variable() -> None:
    result = _config_doc()

    assert result.returncode == 0
    assert result.stdout == render_reference()
    for key in SCHEMA:
        assert f"`{key.name}`" in result.stdout
        assert f"`{key.env_name}`" in result.stdout
