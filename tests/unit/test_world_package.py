"""The world loader's place: a package of its own, its schema generated from its models."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

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


def test_every_object_of_the_schema_is_a_model_with_the_same_keys() -> None:
    models: dict[str, type[BaseModel]] = {"world": World}
    pending: list[type[BaseModel]] = [World]
    while pending:
        for field in pending.pop().model_fields.values():
            for model in _models_in(field.annotation):
                name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", model.__name__).lower()
                if name not in models:
                    models[name] = model
                    pending.append(model)
    objects = {
        name: schema
        for name, schema in WORLD_SCHEMA["$defs"].items()
        if schema.get("type") == "object"
    }
    assert set(objects) == set(models) - {"world"}
    for name, model in models.items():
        schema = WORLD_SCHEMA if name == "world" else objects[name]
        assert set(schema["properties"]) == set(model.model_fields), name
        assert schema["additionalProperties"] is False, name


def test_enumerations_are_the_databases() -> None:
    message = WORLD_SCHEMA["$defs"]["message"]["properties"]
    run = WORLD_SCHEMA["$defs"]["run"]["properties"]
    assert message["origin"]["enum"] == list(MESSAGE_ORIGINS)
    assert run["state"]["enum"] == list(RUN_STATES)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def test_the_models_accept_the_demo_world() -> None:
    world = parse_world_yaml(DEMO_WORLD.read_text(encoding="utf-8"), source=str(DEMO_WORLD))
    parsed = World.model_validate(normalise(world, []))
    assert parsed.people is not None
    assert {person.handle for person in parsed.people} >= {"robin", "alex", "sam"}
