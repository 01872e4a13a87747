"""``python -m app policy`` on an install without the dev extras says what is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A process in which opa-python-client cannot be imported, as after `pip install .`.
_WITHOUT_EXTRAS = (
    "import sys\n"
    "sys.modules['opa_client'] = None\n"
    "from app.__main__ import main\n"
    "sys.exit(main(['policy', 'diff', '--help']))\n"
)


def test_the_policy_command_names_the_missing_extras_and_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRAS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "pip install '.[dev]'" in done.stderr
    assert "opa_client" in done.stderr
    assert "Traceback" not in done.stderr
