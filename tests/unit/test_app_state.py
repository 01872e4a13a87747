"""How a request finds the app serving it: the scope's state (``app/http/app_state.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.config import SCHEMA, Settings
from app.http.app_state import attach, integer_setting, served_app
from app.http.routes import Route

_DEFAULTS = {key.name: key.default for key in SCHEMA}
_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class _App:
    """Stands in for ``app.services.Services``: only what the HTTP layer reads."""

    settings: Settings
    limiter: Any = None
    routes: dict[str, Route] = field(default_factory=dict)


def _app(**overrides: Any) -> _App:
    return _App(Settings(_DEFAULTS).replace(**overrides))


def test_the_attached_app_is_found_in_the_scope_and_the_scope_itself_is_unchanged() -> None:
    app = _app()
    scope: dict[str, Any] = {"type": "http", "state": {"lifespan": "kept"}}

    attached = attach(scope, app)

    assert served_app(attached) is app
    assert attached["state"]["lifespan"] == "kept"
    assert scope == {"type": "http", "state": {"lifespan": "kept"}}


def test_a_scope_without_an_app_is_a_lookup_error_not_a_silent_default() -> None:
    with pytest.raises(LookupError):
        served_app({"type": "http"})


def test_a_setting_comes_from_the_serving_app_and_its_default_outside_one() -> None:
    scope = attach({"type": "http"}, _app(**{"http.max_validation_errors": 3}))

    assert integer_setting(scope, "http.max_validation_errors") == 3
    assert integer_setting({"type": "http"}, "http.max_validation_errors") == 20
    assert integer_setting(None, "http.max_json_depth") == _DEFAULTS["http.max_json_depth"]


def test_two_apps_in_one_process_each_see_their_own_settings() -> None:
    one = attach({"type": "http"}, _app(**{"http.max_json_depth": 5}))
    two = attach({"type": "http"}, _app(**{"http.max_json_depth": 7}))

    assert (
        integer_setting(one, "http.max_json_depth"),
        integer_setting(two, "http.max_json_depth"),
    ) == (5, 7)


def test_the_http_layer_imports_neither_the_wiring_nor_what_it_wires() -> None:
    code = (
        "import importlib, json, pkgutil, sys, app.http\n"
        "for module in pkgutil.iter_modules(app.http.__path__):\n"
        "    importlib.import_module('app.http.' + module.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=_ROOT, capture_output=True, text=True, check=True
    )
    above = ("app.services", "app.auth", "app.main", "app.handlers", "app.usecases")
    imported = [
        name
        for name in json.loads(result.stdout)
        if name.startswith(above) or name.split(".")[0] == "repositories"
    ]

    assert imported == []
