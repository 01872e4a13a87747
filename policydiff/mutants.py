"""Single-point mutants of the policies, found in OPA's AST (:mod:`policydiff.rego`).

The operators and the stable ids (file, rule, operator, expression before and after,
no line number) are described in docs/policy-review.md.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from policydiff.rego import COMPARISONS, Module, field_of, nodes, ref_path

__all__ = [
    "EQUIVALENTS",
    "OPERATORS",
    "EquivalentError",
    "Mutant",
    "enumerate_mutants",
    "read_equivalents",
    "sample",
]

OPERATORS = ("relational", "delete", "negation", "literal", "name")

# The reviewed list of equivalent mutants: one entry per mutant, with its reason.
EQUIVALENTS = Path(__file__).resolve().with_name("equivalent-mutants.yaml")

# Each comparison's mutants: the boundary moved and the comparison negated.
_RELATIONAL = {
    "==": ("!=",),
    "!=": ("==",),
    "<": ("<=", ">="),
    "<=": ("<", ">"),
    ">": (">=", "<="),
    ">=": (">", "<"),
}
_CONTEXT = 110  # characters of context in an id before it is shortened around the edit

Node = dict[str, Any]


class EquivalentError(ValueError):
    """The equivalent-mutants file cannot be read or has a malformed entry."""


@dataclass(frozen=True, slots=True)
class Mutant:
    """One edit of one policy module.

    Attributes:
        file: the module, relative to the policies folder.
        rule: the rule the edit is in.
        operator: one of :data:`OPERATORS`.
        before: the expression (or rule head) before the edit, whitespace collapsed.
        after: the same after the edit.
        start: byte offset of the edited span in the module source.
        end: byte offset just after it.
        replacement: the text that replaces the span.
        row: the line of the edit (for people; not part of the id).
        occurrence: 1 for the first mutant with this description in the rule, 2 for
            the next identical one, ...
    """

    file: str
    rule: str
    operator: str
    before: str
    after: str
    start: int
    end: int
    replacement: str
    row: int
    occurrence: int = 1

    @property
    def id(self) -> str:
        """The stable id: file, rule, operator, before and after (no line number)."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return (
            f"{self.file} {self.rule}: {self.operator}: `{self.before}` -> `{self.after}`{suffix}"
        )

    def apply(self, source: bytes) -> bytes:
        """The module source with this edit."""
        return source[: self.start] + self.replacement.encode("utf-8") + source[self.end :]


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _describe(
    module: Module, outer: tuple[int, int], start: int, end: int, new: str
) -> tuple[str, str]:
    """(before, after) of an edit of [start, end) within the span ``outer``."""
    source = module.source
    before = source[outer[0] : outer[1]].decode("utf-8")
    after = (source[outer[0] : start] + new.encode() + source[end : outer[1]]).decode("utf-8")
    before, after = _collapse(before), _collapse(after)
    if len(before) <= _CONTEXT:
        return before, after
    # Long heads (a multi-line object): keep a window around the edit.
    prefix = _collapse(source[outer[0] : start].decode("utf-8"))
    cut = max(0, len(prefix) - _CONTEXT // 2)
    tail_before = before[cut : cut + _CONTEXT]
    tail_after = after[cut : cut + _CONTEXT + len(new)]
    return f"...{tail_before}...", f"...{tail_after}..."


@dataclass(frozen=True, slots=True)
class _Policies:
    """What every module's mutants are chosen from.

    Attributes:
        vocabulary: input field to the values the rules compare it with.
        outputs: answer field to the values the rules give it (``trust``, ``reason``).
        shapes: package to rule name to (arity, value kind).
    """

    vocabulary: dict[str, set[str]]
    outputs: dict[str, set[str]]
    shapes: dict[str, dict[str, tuple[int, str]]]


class _Finder:
    """Collects the mutants of one module."""

    def __init__(self, module: Module, policies: _Policies) -> None:
        self.module = module
        self.vocabulary = policies.vocabulary
        self.shapes = policies.shapes
        self.found: list[Mutant] = []
        self._outputs = policies.outputs

    def add(
        self, rule: str, operator: str, outer: tuple[int, int], start: int, end: int, new: str
    ) -> None:
        before, after = _describe(self.module, outer, start, end, new)
        if before == after:
            return
        row = self.module.source[:start].count(b"\n") + 1
        self.found.append(
            Mutant(self.module.path, rule, operator, before, after, start, end, new, row)
        )

    # -------------------------------------------------------------- expressions

    def expression(self, rule: str, node: Node, span: tuple[int, int], locals_: set[str]) -> None:
        terms: Any = node.get("terms")
        text = self.module.source[span[0] : span[1]].decode("utf-8")
        operator = ref_path(terms[0]) if isinstance(terms, list) and terms else ()
        if len(operator) == 1 and operator[0] in COMPARISONS:
            symbol = COMPARISONS[operator[0]]
            op_start, op_end = self.module.span(terms[0])
            for new in _RELATIONAL[symbol]:
                self.add(rule, "relational", span, op_start, op_end, new)
        if node.get("negated"):
            self.add(rule, "negation", span, span[0], span[0] + 4, "")
        binding = operator in (("assign",), ("eq",)) or (
            isinstance(terms, dict) and "symbols" in terms
        )
        if not binding and text != "true":
            self.add(rule, "delete", span, span[0], span[1], "true")
        self.terms(rule, terms, span, locals_, node)

    # -------------------------------------------------------------- terms

    def terms(
        self, rule: str, node: Any, outer: tuple[int, int], locals_: set[str], expr: Node | None
    ) -> None:
        """Literal and name mutants in the terms of an expression or head value.

        Comprehension and ``every`` bodies are expressions of their own and are not
        entered here.
        """
        if isinstance(node, list):
            for item in node:
                self.terms(rule, item, outer, locals_, expr)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        value: Any = node.get("value")
        located = "location" in node  # generated terms have no source to edit
        if kind == "string" and located:
            self.literal(rule, node, outer, expr)
        elif kind == "boolean" and located:
            start, end = self.module.span(node)
            self.add(rule, "literal", outer, start, end, "false" if value else "true")
        elif kind == "number" and located and isinstance(value, int):
            start, end = self.module.span(node)
            self.add(rule, "literal", outer, start, end, str(value + 1))
        elif kind == "ref":
            self.name(rule, node, outer, locals_)
            for element in value[1:]:
                if element.get("type") != "string":
                    self.terms(rule, element, outer, locals_, expr)
        elif kind == "call":
            operator = value[0]
            if operator.get("type") == "ref":
                self.name(rule, operator, outer, locals_)
            self.terms(rule, value[1:], outer, locals_, expr)
        elif kind in ("array", "set"):
            self.terms(rule, value, outer, locals_, expr)
        elif kind == "object":
            for key, item in value:
                self.terms(rule, item, outer, locals_, _pair(key))
        elif kind == "var":
            self.name(rule, node, outer, locals_)

    def literal(self, rule: str, node: Node, outer: tuple[int, int], context: Node | None) -> None:
        """A string replaced by another value of the field it is compared with."""
        original = str(node["value"])
        fields = _compared_fields(context, original) if context is not None else set()
        siblings = _siblings(context, original) if context is not None else set()
        values: set[str] = set()
        for name in fields:
            values |= self.vocabulary.get(name, set())
            values |= self._outputs.get(name, set())
        for name, vocabulary in self.vocabulary.items():
            if original in vocabulary and not fields:
                values |= vocabulary  # a literal in a constant rule (live_states, actions)
                fields.add(name)
        choices = sorted(values - {original} - siblings)
        if not fields:
            return  # a path, a description, a reason code: not an input value
        start, end = self.module.span(node)
        replacement = choices[0] if choices else f"not-{original}"
        self.add(rule, "literal", outer, start, end, _quote(replacement))

    def name(self, rule: str, node: Node, outer: tuple[int, int], locals_: set[str]) -> None:
        """A reference to a rule swapped for the next rule of the same shape."""
        path = ref_path(node)
        if not path or path[0] in locals_ or path[0] in ("input", "data"):
            return
        private = True
        if path[0] in self.module.imports and len(path) >= 2:
            package = ".".join(self.module.imports[path[0]])
            name = path[1]
            target = node["value"][1] if node.get("type") == "ref" else None
            private = False  # another package: only its public rules
        elif path[0] in self.shapes.get(self.module.package_name, {}):
            package = self.module.package_name
            name = path[0]
            target = node["value"][0] if node.get("type") == "ref" else node
        else:
            return
        if target is None or "location" not in target:
            return
        rules = self.shapes.get(package, {})
        if name not in rules:
            return
        shape = rules[name]
        candidates = sorted(
            other
            for other, other_shape in rules.items()
            if other not in (name, rule)
            and other_shape == shape
            and (private or not other.startswith("_"))
        )
        if not candidates:
            return
        following = [other for other in candidates if other > name]
        replacement = (following or candidates)[0]
        start, end = self.module.span(target)
        self.add(rule, "name", outer, start, end, replacement)


def _pair(key: Node) -> Node | None:
    """A pseudo context for a value in an object literal: the key names its field."""
    if key.get("type") != "string":
        return None
    return {"object_key": str(key["value"])}


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _compared_fields(context: Node, literal: str) -> set[str]:
    """The fields a literal is compared with in its expression (or its object key)."""
    if "object_key" in context:
        return {str(context["object_key"])}
    terms = context.get("terms")
    if not isinstance(terms, list) or len(terms) != 3:
        return set()
    operator = ref_path(terms[0])
    left, right = terms[1], terms[2]
    fields: set[str] = set()
    if operator in (("equal",), ("neq",)):
        for one, other in ((left, right), (right, left)):
            if other.get("type") == "string" and other.get("value") == literal:
                name = field_of(one)
                if name:
                    fields.add(name)
    elif operator == ("internal", "member_2"):
        if right.get("type") in ("set", "array"):
            name = field_of(left)
            if name:
                fields.add(name)
        if left.get("type") == "string":
            name = field_of(right)
            if name:
                fields.add(name)
    return fields


def _siblings(context: Node, literal: str) -> set[str]:
    """The other strings of the set or array literal holding ``literal``."""
    found: set[str] = set()
    for node in nodes(context.get("terms")):
        if node.get("type") in ("set", "array"):
            strings = {str(item["value"]) for item in node["value"] if item.get("type") == "string"}
            if literal in strings:
                found |= strings
    return found


def _output_vocabulary(modules: Sequence[Module]) -> dict[str, set[str]]:
    """String values of object literals by key (``"trust": "system"``): answers, not input."""
    found: dict[str, set[str]] = {}
    for module in modules:
        for node in nodes(module.ast.get("rules", [])):
            if node.get("type") == "object":
                for key, value in node["value"]:
                    if key.get("type") == "string" and value.get("type") == "string":
                        found.setdefault(str(key["value"]), set()).add(str(value["value"]))
    return found


def _shapes(modules: Sequence[Module]) -> dict[str, dict[str, tuple[int, str]]]:
    """Per package, each rule's (arity, value kind): swaps stay between like rules."""
    shapes: dict[str, dict[str, tuple[int, str]]] = {}
    for module in modules:
        rules = shapes.setdefault(module.package_name, {})
        for rule in module.rules():
            head = rule.node["head"]
            value = head.get("value")
            if "key" in head and value is None:
                kind = "set"
            elif value is None or (value.get("type") == "boolean" and "location" not in value):
                kind = "boolean"
            elif value.get("type") in ("number", "string", "boolean", "set", "array"):
                kind = str(value["type"])
            else:
                kind = "value"
            current = rules.get(rule.name)
            if current is None or current[1] == "boolean":
                rules[rule.name] = (rule.arity, kind)
    return shapes


def _locals(rule: Node) -> set[str]:
    """Argument names of a function rule (never swapped as if they were rules)."""
    names: set[str] = set()
    for argument in rule["head"].get("args") or []:
        if argument.get("type") == "var":
            names.add(str(argument["value"]))
    return names


def _mutate_module(module: Module, policies: _Policies) -> list[Mutant]:
    finder = _Finder(module, policies)
    rules = {rule.name: rule for rule in module.rules()}
    for expression in module.expressions():
        rule = rules.get(expression.rule)
        locals_ = _locals(rule.node) if rule else set()
        finder.expression(
            expression.rule, expression.node, (expression.start, expression.end), locals_
        )
    for rule in module.rules():
        branch: Node | None = rule.node
        while branch is not None:
            head = branch.get("head", {})
            value = head.get("value")
            if isinstance(value, dict) and "location" in value:
                span = module.span(head) if "location" in head else module.span(value)
                finder.terms(rule.name, value, span, _locals(rule.node), {"terms": value})
            branch = branch.get("else")
    return finder.found


def enumerate_mutants(modules: Sequence[Module], vocabulary: dict[str, set[str]]) -> list[Mutant]:
    """Every mutant of ``modules`` (policy modules, not tests), in a fixed order.

    Mutants whose edit gives the same source as another one are kept once.
    """
    policies = _Policies(vocabulary, _output_vocabulary(modules), _shapes(modules))
    mutants: list[Mutant] = []
    for module in modules:
        if module.package[:1] == ("system",):
            continue  # decision-log masking: no decision depends on it
        seen: set[bytes] = set()
        counts: Counter[str] = Counter()
        for mutant in _mutate_module(module, policies):
            edited = mutant.apply(module.source)
            if edited in seen:
                continue
            seen.add(edited)
            counts[mutant.id] += 1
            if counts[mutant.id] > 1:
                mutant = Mutant(
                    mutant.file,
                    mutant.rule,
                    mutant.operator,
                    mutant.before,
                    mutant.after,
                    mutant.start,
                    mutant.end,
                    mutant.replacement,
                    mutant.row,
                    counts[mutant.id],
                )
            mutants.append(mutant)
    return mutants


def sample(mutants: Sequence[Mutant], count: int, seed: int) -> list[Mutant]:
    """A deterministic sample: the ``count`` mutants with the smallest seeded hash of their id.

    Keyed by id, not by position, so adding a rule elsewhere changes the sample only
    by the new rule's own mutants.
    """

    def rank(mutant: Mutant) -> str:
        return hashlib.sha256(f"{seed}\0{mutant.id}".encode()).hexdigest()

    chosen = sorted(mutants, key=rank)[:count]
    order = {mutant.id: index for index, mutant in enumerate(mutants)}
    return sorted(chosen, key=lambda mutant: order[mutant.id])


def read_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """The reviewed equivalent mutants: id to the one-line reason.

    The file is YAML: a list of ``{mutant: <id>, reason: <why no input tells it apart>}``.

    Raises:
        EquivalentError: the file cannot be read, or an entry lacks an id or reason
            or repeats an id.
    """
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else []
    except (OSError, yaml.YAMLError) as exc:
        raise EquivalentError(f"{path}: {exc}") from exc
    entries: dict[str, str] = {}
    for number, entry in enumerate(document or [], start=1):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("mutant"), str)
            or not isinstance(entry.get("reason"), str)
            or not entry["reason"].strip()
        ):
            raise EquivalentError(f"{path}: entry {number} needs a mutant id and a reason")
        if entry["mutant"] in entries:
            raise EquivalentError(f"{path}: entry {number} repeats {entry['mutant']!r}")
        entries[entry["mutant"]] = entry["reason"].strip()
    return entries
