"""Which module reads which: the dependents of each module, the package of each entry
point and the rules an entry point can reach, from the AST (:mod:`policydiff.rego`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from policydiff.rego import Module, Node, all_terms, nodes, ref_path

__all__ = ["dependents", "entrypoint_packages", "reachable"]


def _references(module: Module) -> set[tuple[str, ...]]:
    """The data paths a module reads: its imports and every ``data.x.y`` ref."""
    paths = set(module.imports.values())
    for term in all_terms(module.ast.get("rules", [])):
        path = ref_path(term)
        if len(path) > 1 and path[0] == "data":
            paths.add(path[1:])
    return paths


def dependents(modules: Sequence[Module]) -> dict[str, set[str]]:
    """For each module path, the module paths that read it, directly or not (itself too)."""
    readers: dict[str, set[str]] = {module.path: {module.path} for module in modules}
    direct: dict[str, set[str]] = {module.path: set() for module in modules}
    names = {module.path: {rule.name for rule in module.rules()} for module in modules}
    for reader in modules:
        for path in _references(reader):
            for module in modules:
                if _reads(path, module.package, names[module.path]):
                    direct[module.path].add(reader.path)
    for module_path, found in readers.items():
        stack = list(direct[module_path])
        while stack:
            current = stack.pop()
            if current not in found:
                found.add(current)
                stack.extend(direct[current])
    return readers


def _reads(path: tuple[str, ...], package: tuple[str, ...], rules: set[str]) -> bool:
    """Whether reading ``data.<path>`` can read a rule of ``package``."""
    if package[: len(path)] == path:
        return True  # the path names the package or a folder above it
    if path[: len(package)] != package:
        return False
    return len(path) == len(package) or path[len(package)] in rules


def entrypoint_packages(modules: Sequence[Module], entrypoints: Sequence[str]) -> dict[str, str]:
    """The module path defining each entry point (``authz/decision`` -> the ``authz`` module).

    An entry point ``a/b/rule`` belongs to the module of package ``a.b`` that defines
    ``rule``; entry points without such a module are left out.
    """
    found: dict[str, str] = {}
    for entrypoint in entrypoints:
        *package, rule = entrypoint.split("/")
        for module in modules:
            if list(module.package) == package and any(r.name == rule for r in module.rules()):
                found[entrypoint] = module.path
    return found


# ---------------------------------------------------------------- reachability


def _read_terms(node: Any) -> Iterator[Node]:
    """Every ref and standalone variable in ``node``; a ref's own head is not a second term."""
    return (found for found in nodes(node, _read_children) if found.get("type") in ("ref", "var"))


def _read_children(node: Node) -> Iterable[Any]:
    """Below a ref its indexes, below a variable nothing, below anything else every value."""
    kind = node.get("type")
    if kind == "ref":
        indexes: list[Any] = node["value"][1:]
        return indexes
    if kind == "var":
        return ()
    return (value for key, value in node.items() if key != "location")


def _rule_refs(module: Module, rule: Node, packages: dict[tuple[str, ...], set[str]]) -> set[str]:
    """The rules (``package.rule``) one rule definition reads."""
    found: set[str] = set()
    local = packages.get(module.package, set())
    for term in _read_terms(rule):
        path = ref_path(term)
        if not path:
            continue
        head, rest = path[0], path[1:]
        if head in module.imports:
            path = (*module.imports[head], *rest)
        elif head == "data":
            path = rest
        elif head in local:
            found.add(".".join((*module.package, head)))
            continue
        else:
            continue
        for cut in range(len(path), 0, -1):
            package, tail = path[:cut], path[cut:]
            if package in packages:
                if tail and tail[0] in packages[package]:
                    found.add(".".join((*package, tail[0])))
                elif not tail:
                    found.update(".".join((*package, name)) for name in packages[package])
                break
    return found


def reachable(modules: Sequence[Module], entrypoints: Sequence[str]) -> set[str]:
    """The rules (``package.rule``) an evaluation of ``entrypoints`` can read.

    A rule outside this set (a list kept for the app's tests, a decision object no
    rule returns) cannot change any entry point's answer, whatever it says.
    """
    packages: dict[tuple[str, ...], set[str]] = {}
    for module in modules:
        packages.setdefault(module.package, set()).update(rule.name for rule in module.rules())
    reads: dict[str, set[str]] = {}
    for module in modules:
        for rule in module.rules():
            name = ".".join((*module.package, rule.name))
            reads.setdefault(name, set()).update(_rule_refs(module, rule.node, packages))
    stack = [entrypoint.replace("/", ".") for entrypoint in entrypoints]
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(reads.get(current, ()))
    return seen
