"""Layers point one way (issue 23): the domain is pure, the repositories sit below
the policy gateway and the use cases.

Checked on the import statements, so a function-level import counts too.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(folder: str) -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                yield from ((path.name, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
                yield path.name, node.module


def test_the_repositories_import_neither_the_gateway_nor_the_layers_above() -> None:
    above = ("app.policy", "app.usecases", "app.handlers", "app.http", "app.services")
    wrong = [
        (name, module)
        for name, module in _imports("repositories")
        if any(module == layer or module.startswith(f"{layer}.") for layer in above)
    ]

    assert wrong == []


def test_the_domain_imports_only_the_standard_library_and_itself() -> None:
    allowed = {"app.domain", "app.errors"}
    wrong = [
        (name, module)
        for name, module in _imports("app/domain")
        if module.split(".")[0] not in sys.stdlib_module_names
        and module != "__future__"
        and not any(module == ok or module.startswith(f"{ok}.") for ok in allowed)
    ]

    assert wrong == []
