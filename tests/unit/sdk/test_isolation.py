"""The SDK imports nothing of the server, so adapter authors can install it alone."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.services import REPO_ROOT

FORBIDDEN = ("app", "repositories", "sqlalchemy", "connexion", "psycopg2", "flask")


def test_importing_the_sdk_pulls_in_no_server_module() -> None:
    code = (
        "import json, sys\n"
        "import agent_sdk, agent_sdk.rest, agent_sdk.relay, agent_sdk.comms, agent_sdk.render\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )

    modules = json.loads(result.stdout)
    leaked = [name for name in modules if name.split(".")[0] in FORBIDDEN]
    assert leaked == []
    assert "agent_sdk.client" in modules


def test_no_sdk_source_names_a_server_package() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "agent_sdk").rglob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith(("import ", "from "))
        and line.split()[1].split(".")[0] in FORBIDDEN
    ]
    assert offenders == []
