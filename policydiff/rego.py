"""What the policies themselves say, read from OPA's AST (``opa parse --format json``).

Two tools use it:

* the generator (:mod:`policydiff.generate`) takes its **vocabulary** from here: every
  string literal the rules compare with an input field (``author.origin == "system"``,
  ``input.resource.state in live_states``, ``grant_levels[grant.level]``, ...), keyed
  by the field's name. A new name in Rego (a new state, origin, kind or action) is
  therefore generated without editing the generator;
* mutation testing (:mod:`policydiff.mutants`) finds its mutation points here: every
  body expression with its source span, operators and literals, and which entry
  points depend on which package.

Nothing here reads Rego with regular expressions: each module is parsed by the pinned
``opa`` binary with locations, and every position comes from the AST. A location's
``row`` and ``col`` are 1-based, ``col`` counted in bytes, and ``text`` is the exact
source of the node (base64 in the JSON), so a span is ``(line start + col - 1,
+ len(text))``.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "COMPARISONS",
    "Expression",
    "Module",
    "ParseError",
    "Rule",
    "dependents",
    "entrypoint_packages",
    "field_of",
    "nodes",
    "parse_modules",
    "reachable",
    "ref_path",
    "vocabulary",
]

Node = dict[str, Any]

# Builtin names of the comparison operators, and their Rego spelling.
COMPARISONS = {"equal": "==", "neq": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}
_MEMBER = ("internal", "member_2")


class ParseError(RuntimeError):
    """``opa parse`` rejected a module, or the binary is missing."""


@dataclass(frozen=True, slots=True)
class Expression:
    """One body expression of a rule (also inside comprehensions and ``every``).

    Attributes:
        node: the expression's AST node.
        rule: the name of the rule whose body (or head value) holds it.
        start: byte offset of the expression in the module source.
        end: byte offset just after it.
    """

    node: Node
    rule: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule (one definition of a name: its bodies and else branches).

    Attributes:
        name: the rule's name (``decision``, ``_target_matches``).
        arity: how many arguments it takes (0 for a document rule).
        node: the rule's AST node.
    """

    name: str
    arity: int
    node: Node


@dataclass
class Module:
    """A parsed policy module.

    Attributes:
        path: the file, relative to the policies folder (``authz/levels/levels.rego``).
        source: the file's bytes.
        ast: the JSON AST of ``opa parse``.
        package: the package path without ``data`` (``("authz", "levels")``).
        imports: alias to imported path without ``data`` (``levels -> (authz, levels)``).
    """

    path: str
    source: bytes
    ast: Node
    package: tuple[str, ...] = ()
    imports: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _lines: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.package = tuple(str(term["value"]) for term in self.ast["package"]["path"][1:])
        for entry in self.ast.get("imports", []):
            path = ref_path(entry["path"])
            if path and path[0] == "data":
                alias = entry.get("alias") or path[-1]
                self.imports[str(alias)] = path[1:]
        self._lines = [0]
        for index, byte in enumerate(self.source):
            if byte == 0x0A:
                self._lines.append(index + 1)

    @property
    def package_name(self) -> str:
        """The package as written in Rego (``authz.levels``)."""
        return ".".join(self.package)

    def span(self, node: Node) -> tuple[int, int]:
        """The byte span of ``node`` in :attr:`source`, from its location."""
        location = node["location"]
        text = base64.b64decode(location["text"])
        start = self._lines[location["row"] - 1] + location["col"] - 1
        end = start + len(text)
        if node.get("type") == "var" and isinstance(node.get("value"), str):
            # OPA locates the lone variable of a one-line `else := x if _v` body at the
            # whole branch; the variable itself is the end of that text.
            name = node["value"].encode("utf-8")
            if text != name and text.endswith(name):
                start = end - len(name)
        return start, end

    def text(self, node: Node) -> str:
        """The source text of ``node``."""
        start, end = self.span(node)
        return self.source[start:end].decode("utf-8")

    def rules(self) -> list[Rule]:
        """Every rule definition, in source order."""
        return [
            Rule(name=_rule_name(node), arity=len(node["head"].get("args") or []), node=node)
            for node in self.ast.get("rules", [])
        ]

    def expressions(self) -> Iterator[Expression]:
        """Every expression written in a rule body, else branch, comprehension or ``every``.

        Generated expressions (the implicit ``true`` body of ``x := 1``) are skipped:
        they have no source of their own.
        """
        for rule in self.ast.get("rules", []):
            name = _rule_name(rule)
            branch: Node | None = rule
            while branch is not None:
                yield from self._body(branch.get("body", []), name)
                head = branch.get("head", {})
                for key in ("value", "key"):
                    if key in head:
                        yield from self._nested(head[key], name)
                branch = branch.get("else")

    def _body(self, body: Sequence[Node], rule: str) -> Iterator[Expression]:
        for expr in body:
            if not expr.get("generated"):
                terms: Any = expr.get("terms")
                lone_var = isinstance(terms, dict) and terms.get("type") == "var"
                start, end = self.span(terms if lone_var and not expr.get("negated") else expr)
                yield Expression(node=expr, rule=rule, start=start, end=end)
            yield from self._nested(expr.get("terms"), rule)
            for modifier in expr.get("with", []) or []:
                yield from self._nested(modifier.get("value"), rule)

    def _nested(self, node: Any, rule: str) -> Iterator[Expression]:
        """Expressions inside comprehensions and ``every`` within ``node``."""
        if isinstance(node, list):
            for item in node:
                yield from self._nested(item, rule)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        value: Any = node.get("value")
        if kind in ("arraycomprehension", "setcomprehension", "objectcomprehension"):
            for key in ("term", "key", "value"):
                if key in value:
                    yield from self._nested(value[key], rule)
            yield from self._body(value["body"], rule)
        elif "body" in node and "domain" in node:  # every
            yield from self._nested(node["domain"], rule)
            yield from self._body(node["body"], rule)
        elif "symbols" in node:  # some x in xs
            yield from self._nested(node["symbols"], rule)
        elif kind in ("ref", "call", "array", "set"):
            yield from self._nested(value, rule)
        elif kind == "object":
            for pair in value:
                yield from self._nested(pair, rule)


def _rule_name(rule: Node) -> str:
    head = rule["head"]
    name = head.get("name")
    if name:
        return str(name)
    return ".".join(str(term["value"]) for term in head.get("ref", []))


def ref_path(term: Node) -> tuple[str, ...]:
    """The leading constant part of a ref (``input.facts.now`` -> ``(input, facts, now)``).

    The path stops at the first element that is not a string (a variable index).
    """
    if term.get("type") == "var":
        return (str(term["value"]),)
    if term.get("type") != "ref":
        return ()
    path: list[str] = []
    for index, element in enumerate(term["value"]):
        if element.get("type") == "string" or (index == 0 and element.get("type") == "var"):
            path.append(str(element["value"]))
        else:
            break
    return tuple(path)


def field_of(term: Node) -> str | None:
    """The input field a ref reads: its last string element (``author.origin`` -> origin).

    ``None`` for anything that is not a ref ending in a field name.
    """
    if term.get("type") != "ref":
        return None
    last = term["value"][-1]
    if len(term["value"]) < 2 or last.get("type") != "string":
        return None
    return str(last["value"])


def _operator(expr: Node) -> tuple[str, ...]:
    terms = expr.get("terms")
    if not isinstance(terms, list) or not terms:
        return ()
    return ref_path(terms[0])


def parse_modules(policies: Path, *, binary: Path, tests: bool = False) -> list[Module]:
    """Parse every ``.rego`` file under ``policies`` (tests only when ``tests``), sorted.

    Raises:
        ParseError: the binary is missing or a module does not parse.
    """
    if not binary.exists():
        raise ParseError(f"{binary} missing: run make tools")
    command = [str(binary), "parse", "--format", "json", "--json-include", "locations,-comments"]
    files = sorted(
        path for path in policies.rglob("*.rego") if tests or not path.name.endswith("_test.rego")
    )

    def parse(path: Path) -> Module:
        result = subprocess.run(
            [*command, str(path)],
            capture_output=True,
            check=False,
        )
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", errors="replace").strip()
            raise ParseError(f"{path}: {message}")
        return Module(
            path=path.relative_to(policies).as_posix(),
            source=path.read_bytes(),
            ast=json.loads(result.stdout),
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(parse, files))


# ---------------------------------------------------------------- vocabulary


def _strings(term: Any) -> Iterator[str]:
    """Every string scalar inside a literal term (sets, arrays, objects: keys and values)."""
    if isinstance(term, list):
        for item in term:
            yield from _strings(item)
        return
    if not isinstance(term, dict):
        return
    kind = term.get("type")
    if kind == "string":
        yield str(term["value"])
    elif kind in ("array", "set", "object"):
        yield from _strings(term["value"])


def _object_keys(term: Node) -> list[str]:
    if term.get("type") != "object":
        return []
    return [str(key["value"]) for key, _ in term["value"] if key.get("type") == "string"]


class _Constants:
    """Rules whose value is a literal (``live_states := {...}``), by package and name."""

    def __init__(self, modules: Sequence[Module]) -> None:
        self._values: dict[tuple[str, ...], Node] = {}
        self._modules = {module.path: module for module in modules}
        for module in modules:
            for rule in module.rules():
                value = rule.node["head"].get("value")
                body = rule.node.get("body", [])
                literal = all(expr.get("generated") for expr in body)
                if (
                    literal
                    and rule.arity == 0
                    and isinstance(value, dict)
                    and value.get("type") in ("set", "array", "object")
                ):
                    self._values[(*module.package, rule.name)] = value

    def resolve(self, module: Module, term: Node) -> tuple[Node, bool] | None:
        """The literal value a ref names, and whether the ref indexes into it.

        ``live_states`` and ``messages.actions`` name a whole literal; ``_states[x]``
        indexes one (its values matter, not its keys).
        """
        path = ref_path(term)
        if not path:
            return None
        head, rest = path[0], path[1:]
        if head in module.imports:
            candidate = (*module.imports[head], *rest)
        elif head == "data":
            candidate = rest
        else:
            candidate = (*module.package, *path)
        for cut in range(len(candidate), 0, -1):
            if candidate[:cut] in self._values:
                indexed = len(term["value"]) > len(path) or cut < len(candidate)
                return self._values[candidate[:cut]], indexed
        return None


def vocabulary(
    modules: Sequence[Module], data: Sequence[tuple[str, Any]] = ()
) -> dict[str, set[str]]:
    """The string values the policies compare each input field with, by field name.

    Read from the AST: ``field == "x"`` and ``field != "x"`` (either side),
    ``field in {"x", ...}`` and ``field in rule`` for a literal rule (``live_states``,
    ``messages.actions``, ``_states[input.action]``: every string in its value),
    ``"x" in field`` (``"authz:inspect" in actor.permissions``), and
    ``rule[field]`` for a literal object (``grant_levels[grant.level]``: its keys).
    ``data`` adds the string values of policy data documents under their key
    (``"plane": "client"`` in the session-context registry).
    """
    constants = _Constants(modules)
    found: dict[str, set[str]] = {}

    def add(name: str | None, values: Any) -> None:
        if name is not None:
            found.setdefault(name, set()).update(values)

    for module in modules:
        for expr in _all_expressions(module):
            operator = _operator(expr)
            terms = expr.get("terms")
            if not isinstance(terms, list):
                continue
            args = terms[1:]
            if operator in (("equal",), ("neq",)) and len(args) == 2:
                for one, other in (args, args[::-1]):
                    if other.get("type") == "string":
                        add(field_of(one), [str(other["value"])])
            elif operator == _MEMBER and len(args) == 2:
                needle, haystack = args
                if haystack.get("type") in ("set", "array"):
                    add(field_of(needle), _strings(haystack["value"]))
                elif (resolved := constants.resolve(module, haystack)) is not None:
                    value, indexed = resolved
                    if indexed and value.get("type") == "object":
                        add(field_of(needle), _strings([v for _, v in value["value"]]))
                    else:
                        add(field_of(needle), _strings(value))
                if needle.get("type") == "string":
                    add(field_of(haystack), [str(needle["value"])])
        for term in _all_terms(module.ast.get("rules", [])):
            if term.get("type") != "ref":
                continue
            for position, index in enumerate(term["value"][1:], start=1):
                if index.get("type") != "ref":
                    continue
                owner = {"type": "ref", "value": term["value"][:position]}
                resolved = constants.resolve(module, owner)
                if resolved is not None and not resolved[1]:
                    add(field_of(index), _object_keys(resolved[0]))
    read = {
        name
        for module in modules
        for term in _all_terms(module.ast.get("rules", []))
        if (name := field_of(term)) is not None
    }
    for _, document in data:
        _data_strings(document, found, read)
    return found


def _data_strings(document: Any, found: dict[str, set[str]], read: set[str]) -> None:
    """String values of policy data under keys that the rules read as fields."""
    if isinstance(document, dict):
        for key, value in document.items():
            if isinstance(value, str):
                if key in read:
                    found.setdefault(str(key), set()).add(value)
            else:
                _data_strings(value, found, read)
    elif isinstance(document, list):
        for item in document:
            _data_strings(item, found, read)


def nodes(node: Any) -> Iterator[Node]:
    """Every object of an AST (``location`` objects left out), depth first."""
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            yield current
            stack.extend(value for key, value in current.items() if key != "location")


def _all_expressions(module: Module) -> Iterator[Node]:
    """Every expression node, generated ones included (their terms are real)."""
    return (
        node for node in nodes(module.ast.get("rules", [])) if "index" in node and "terms" in node
    )


def _all_terms(node: Any) -> Iterator[Node]:
    return (found for found in nodes(node) if "type" in found and "value" in found)


# ---------------------------------------------------------------- dependencies


def _references(module: Module) -> set[tuple[str, ...]]:
    """The data paths a module reads: its imports and every ``data.x.y`` ref."""
    paths = set(module.imports.values())
    for term in _all_terms(module.ast.get("rules", [])):
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
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            kind = current.get("type")
            if kind == "ref":
                yield current
                stack.extend(current["value"][1:])
            elif kind == "var":
                yield current
            else:
                stack.extend(value for key, value in current.items() if key != "location")


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
