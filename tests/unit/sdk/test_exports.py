"""Every name the SDK package exports can be imported from it (they load lazily)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import agent_sdk
from tests.support.services import REPO_ROOT


@pytest.mark.parametrize("name", agent_sdk.__all__)
def test_every_exported_name_imports_from_the_package(name: str) -> None:
    # ``from agent_sdk import <name>``
    value = getattr(__import__("agent_sdk", fromlist=[name]), name)

    assert value is getattr(agent_sdk, name)
    assert getattr(value, "__module__", "").startswith("agent_sdk."), name
    assert name in dir(agent_sdk)


def test_each_name_comes_from_the_module_it_is_mapped_to() -> None:
    exports = vars(agent_sdk)["_EXPORTS"]
    assert sorted(exports) == sorted(agent_sdk.__all__)
    for name, module in exports.items():
        assert getattr(importlib.import_module(module), name) is getattr(agent_sdk, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchName"):
        agent_sdk.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_contracts_loads_no_other_sdk_module() -> None:
    """What the server imports: the contracts, without the HTTP client, relay or renderers."""
    probe = (
        "import sys, agent_sdk.contracts\n"
        "print(sorted(m for m in sys.modules if m.startswith('agent_sdk.')"
        " and not m.startswith('agent_sdk.contracts')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
