"""Decision tables from labelled answers; the reviewer's tool stays out of the service."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from policydiff.doc import Row, table_rows
from tests.support.services import REPO_ROOT

ALLOW = ("yes", "allowed", "200")
DENY = ("no", "not_found", "404")


def _rows() -> list[tuple[dict[str, str], tuple[str, ...]]]:
    rows: list[tuple[dict[str, str], tuple[str, ...]]] = []
    for status in ("active", "disabled"):
        for grant in ("none", "read", "write"):
            for channel in ("regular", "dm"):
                allowed = status == "active" and grant != "none"
                rows.append(
                    (
                        {"status": status, "grant": grant, "channel": channel},
                        ALLOW if allowed else DENY,
                    )
                )
    return rows


def test_a_fact_that_never_matters_is_left_out_and_values_are_merged() -> None:
    facts, rows = table_rows(_rows(), ["status", "grant", "channel"])

    assert facts == ["status", "grant"]
    assert rows == [
        Row(conditions=(("status", ("active",)), ("grant", ("none",))), answer=DENY),
        Row(conditions=(("status", ("active",)), ("grant", ("read", "write"))), answer=ALLOW),
        Row(conditions=(("status", ("disabled",)),), answer=DENY),
    ]


def test_one_answer_everywhere_is_one_row_without_facts() -> None:
    facts, rows = table_rows([({"status": s}, ALLOW) for s in ("active", "disabled")], ["status"])
    assert (facts, rows) == ([], [Row(conditions=(), answer=ALLOW)])


def test_serving_the_api_never_imports_the_reviewer_tool() -> None:
    code = (
        "import json, sys\n"
        "import app.main, app.services, app.server, app.__main__\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    modules = json.loads(result.stdout)
    assert [name for name in modules if name.split(".")[0] in ("policydiff", "opa_client")] == []


def test_only_the_command_line_names_policydiff_and_only_inside_a_function() -> None:
    offenders = []
    for path in (REPO_ROOT / "app").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only: a lazy import inside main() is fine
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                )
                if any(name.split(".")[0] == "policydiff" for name in names):
                    offenders.append(str(path.relative_to(REPO_ROOT)))
    assert offenders == []


def test_no_deployment_file_turns_the_corpus_recorder_on() -> None:
    files = [
        REPO_ROOT / "Dockerfile",
        REPO_ROOT / "docker-compose.yml",
        *sorted((REPO_ROOT / "deploy").rglob("*.yaml")),
    ]
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in files
        if "POLICY_CORPUS_FILE" in path.read_text(encoding="utf-8")
        or "policy.corpus_file" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
    assert "policydiff" not in (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8")
