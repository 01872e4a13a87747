"""The SDK imports nothing of the server, so adapter authors can install it alone.

Its run-time dependencies are ``httpx`` and ``attrs`` (and pydantic for the wire
contracts in ``agent_sdk.contracts``); ``requests`` in particular is not one of them:
every HTTP call goes through the generated client on httpx.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.services import REPO_ROOT

FORBIDDEN = ("app", "repositories", "sqlalchemy", "connexion", "psycopg2", "flask", "requests")


def test_importing_the_sdk_pulls_in_no_server_module_and_not_requests() -> None:
    # Every module of the package, found by walking it, so a new one is covered too.
    code = (
        "import importlib, importlib.util, json, pkgutil, sys\n"
        "import agent_sdk\n"
        "names = [m.name for m in pkgutil.walk_packages(agent_sdk.__path__, 'agent_sdk.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(sys.modules)\n"
        "installed = importlib.util.find_spec('requests') is not None\n"
        "print(json.dumps({'walked': names, 'loaded': loaded, 'requests': installed}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )

    answer = json.loads(result.stdout)
    leaked = [name for name in answer["loaded"] if name.split(".")[0] in FORBIDDEN]
    assert leaked == []
    assert {"agent_sdk.client", "agent_sdk.privacy", "agent_sdk.rest"} <= set(answer["walked"])
    # requests is installed in this environment (the server's tests use it), so its
    # absence from the loaded modules is the SDK's doing.
    assert answer["requests"] is True


def test_no_sdk_source_names_a_server_package_or_requests() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "agent_sdk").rglob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith(("import ", "from "))
        and line.split()[1].split(".")[0] in FORBIDDEN
    ]
    assert offenders == []
