"""The world loader's place: a package of its own, its schema generated from its models."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from repositories.models import MESSAGE_ORIGINS, RUN_STATES
from world import parse_world_yaml
from world.schema import WORLD_SCHEMA, World
from world.validation import normalise

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_WORLD = REPO_ROOT / "examples" / "demo-world.yaml"


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import statement in ``path``, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.append((node.module or "", [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


def test_the_serving_app_does_not_import_the_world_loader() -> None:
    code = "import sys, app.main, app.server; print('world' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_repositories_do_not_import_the_world_package() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "repositories").rglob("*.py")
        for module, _names in _imports(path)
        if module.split(".")[0] == "world"
    ]
    assert offenders == []


def test_the_world_package_writes_only_through_the_bulk_module() -> None:
    offenders = [
        f"{path.relative_to(REPO_ROOT)}: {module} {names}"
        for path in (REPO_ROOT / "world").rglob("*.py")
        for module, names in _imports(path)
        if module.split(".")[0] == "psycopg2"
        or (module.split(".")[0] == "sqlalchemy" and names != ["Connection"])
    ]
    assert offenders == []


def test_the_schema_is_generated_from_the_models() -> None:
    Draft202012Validator.check_schema(WORLD_SCHEMA)
    generated = World.model_json_schema()
    assert set(WORLD_SCHEMA["properties"]) == set(generated["properties"])
    assert WORLD_SCHEMA["$defs"]["message"]["properties"]["origin"]["enum"] == list(MESSAGE_ORIGINS)
    assert WORLD_SCHEMA["$defs"]["run"]["properties"]["state"]["enum"] == list(RUN_STATES)
    assert WORLD_SCHEMA["$defs"]["person"]["additionalProperties"] is False


def test_the_models_accept_the_demo_world() -> None:
    world = parse_world_yaml(DEMO_WORLD.read_text(encoding="utf-8"), source=str(DEMO_WORLD))
    parsed = World.model_validate(normalise(world, []))
    assert parsed.people is not None
    assert {person.handle for person in parsed.people} >= {"robin", "alex", "sam"}
