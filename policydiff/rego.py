"""The policies as OPA parses them (``opa parse --format json``): modules, rules and
expressions with their source spans, and helpers to walk the AST.

The generator's vocabulary (:mod:`policydiff.rego_vocabulary`), the dependencies and
reachability of entry points (:mod:`policydiff.rego_graph`) and the mutation points
(:mod:`policydiff.mutants`) are read from here. Nothing reads Rego with regular
expressions: each module is parsed by the pinned ``opa`` binary with locations. A
location's ``row`` and ``col`` are 1-based, ``col`` counted in bytes, and ``text`` is
the exact source of the node (base64 in the JSON), so a span is ``(line start + col -
1, + len(text))``.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
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
    "all_terms",
    "field_of",
    "nodes",
    "parse_modules",
    "ref_path",
]

Node = dict[str, Any]

# Builtin names of the comparison operators, and their Rego spelling.
COMPARISONS = {"equal": "==", "neq": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}


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


def nodes(node: Any, children: Callable[[Node], Iterable[Any]] | None = None) -> Iterator[Node]:
    """Every object of an AST (``location`` objects left out), depth first.

    ``children`` names what to descend into below an object (default: all its values);
    an object it is not called for is not reached.
    """
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            yield current
            stack.extend(_values(current) if children is None else children(current))


def _values(node: Node) -> Iterator[Any]:
    return (value for key, value in node.items() if key != "location")


def all_terms(node: Any) -> Iterator[Node]:
    return (found for found in nodes(node) if "type" in found and "value" in found)
