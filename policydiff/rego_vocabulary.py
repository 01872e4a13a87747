"""The vocabulary of the policies for the generator (:mod:`policydiff.generate`).

Every string literal the rules compare with an input field (``author.origin ==
"system"``, ``input.resource.state in live_states``, ``grant_levels[grant.level]``, ...),
keyed by the field's name and read from the AST (:mod:`policydiff.rego`), so a new name
in Rego (a state, origin, kind or action) is generated without editing the generator.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from policydiff.rego import Module, Node, all_terms, field_of, nodes, ref_path

__all__ = ["literal_sets", "vocabulary"]

# The builtin of `x in xs`.
_MEMBER = ("internal", "member_2")


def _operator(expr: Node) -> tuple[str, ...]:
    terms = expr.get("terms")
    if not isinstance(terms, list) or not terms:
        return ()
    return ref_path(terms[0])


def _all_expressions(module: Module) -> Iterator[Node]:
    """Every expression node, generated ones included (their terms are real)."""
    return (
        node for node in nodes(module.ast.get("rules", [])) if "index" in node and "terms" in node
    )


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


def _literals(modules: Sequence[Module]) -> Iterator[tuple[Module, str, Node]]:
    """(module, rule name, value) of each document rule whose value is a literal set,
    array or object (``live_states := {...}``: its body is only OPA's generated ``true``)."""
    for module in modules:
        for rule in module.rules():
            value = rule.node["head"].get("value")
            literal = all(expr.get("generated") for expr in rule.node.get("body", []))
            if (
                literal
                and rule.arity == 0
                and isinstance(value, dict)
                and value.get("type") in ("set", "array", "object")
            ):
                yield module, rule.name, value


class _Constants:
    """Rules whose value is a literal (``live_states := {...}``), by package and name."""

    def __init__(self, modules: Sequence[Module]) -> None:
        self._values = {
            (*module.package, name): value for module, name, value in _literals(modules)
        }

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
        for term in all_terms(module.ast.get("rules", [])):
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
        for term in all_terms(module.ast.get("rules", []))
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


def literal_sets(modules: Sequence[Module], name: str) -> dict[str, tuple[str, ...]]:
    """Each package's literal set rule ``name`` (``actions := {...}``), by package name.

    The strings are in source order: OPA's JSON lists a set sorted, but the generated
    corpus keeps the order the policies write, so an unchanged policy gives the same
    bytes. Packages without such a rule, or whose rule is not a literal, are left out.
    """
    found: dict[str, tuple[str, ...]] = {}
    for module, rule, value in _literals(modules):
        if rule == name and value["type"] in ("set", "array"):
            strings = sorted(
                (term for term in value["value"] if term.get("type") == "string"), key=_position
            )
            found[module.package_name] = tuple(str(term["value"]) for term in strings)
    return found


def _position(term: Node) -> tuple[int, int]:
    location = term.get("location") or {}
    return int(location.get("row", 0)), int(location.get("col", 0))
