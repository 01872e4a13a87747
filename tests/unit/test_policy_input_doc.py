"""Every field of the typed policy inputs is named in ``docs/policy-input.md``.

The typed inputs (``app/policy/inputs.py``, the fact bundle of ``app/domain/facts.py``)
and the contract page reviewers read are written by hand, side by side (step 9 of the
checklist in ``docs/architecture.md``). This test turns "keep them in step" into a
check: a field the app sends to OPA that the page does not name fails here.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from types import ModuleType

import pytest

from app.domain import facts
from app.policy import inputs

_DOC = Path(__file__).resolve().parents[2] / "docs" / "policy-input.md"


def _named_in_code(markdown: str) -> set[str]:
    """The identifiers written in the page's code: fenced blocks and inline spans."""
    fences = re.findall(r"```.*?```", markdown, flags=re.DOTALL)
    prose = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    code = fences + re.findall(r"`([^`\n]+)`", prose)
    return {word for text in code for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}


def _typed_inputs(*modules: ModuleType) -> list[tuple[str, str]]:
    """(TypedDict name, field) of every TypedDict the modules define."""
    fields: list[tuple[str, str]] = []
    for module in modules:
        for name, value in vars(module).items():
            if typing.is_typeddict(value) and value.__module__ == module.__name__:
                fields.extend((name, key) for key in value.__annotations__)
    return sorted(fields)


FIELDS = _typed_inputs(inputs, facts)


def test_the_typed_inputs_are_found() -> None:
    names = {name for name, _ in FIELDS}
    assert {"DecisionInput", "RunContextInput", "SessionContextInput", "FactBundle"} <= names


@pytest.mark.parametrize(("typed_dict", "field"), FIELDS)
def test_every_input_field_is_named_in_the_contract_page(typed_dict: str, field: str) -> None:
    named = _named_in_code(_DOC.read_text(encoding="utf-8"))
    assert field in named, f"{typed_dict}.{field} is sent to OPA; docs/policy-input.md lacks it"


def test_only_code_counts_as_naming_a_field() -> None:
    page = (
        "The runner_id is prose.\n\n`{kind: agent, owner_id?}`\n\n"
        '```json\n{"enrollment_epoch": 1}\n```\n'
    )
    named = _named_in_code(page)
    assert {"owner_id", "enrollment_epoch", "kind"} <= named
    assert "runner_id" not in named
