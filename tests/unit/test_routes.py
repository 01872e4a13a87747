"""Route metadata: every operation must name its action and rate-limit class."""

from __future__ import annotations

from typing import Any

import pytest

from app.http.routes import Route, load_routes, load_spec


def _spec(**operation: Any) -> dict[str, Any]:
    base = {
        "operationId": "listThings",
        "x-action": "thing.list",
        "x-rate-limit-class": "chat",
        "responses": {},
    }
    base.update(operation)
    return {"paths": {"/things": {"parameters": [], "get": base}}}


def test_an_operation_becomes_a_route_with_its_action_and_class() -> None:
    routes = load_routes(_spec())

    assert routes == {
        "listThings": Route(
            operation_id="listThings",
            method="GET",
            path="/things",
            action="thing.list",
            rate_class="chat",
        )
    }


@pytest.mark.parametrize("missing", ["x-action", "x-rate-limit-class", "operationId"])
def test_an_operation_without_metadata_is_refused_naming_it(missing: str) -> None:
    spec = _spec()
    del spec["paths"]["/things"]["get"][missing]

    with pytest.raises(ValueError, match=f"GET /things lacks {missing}"):
        load_routes(spec)


def test_every_missing_key_is_named() -> None:
    spec = _spec()
    del spec["paths"]["/things"]["get"]["x-action"]
    del spec["paths"]["/things"]["get"]["x-rate-limit-class"]

    with pytest.raises(ValueError, match="lacks x-action, x-rate-limit-class"):
        load_routes(spec)


def test_every_http_method_of_a_path_is_a_route_and_other_keys_are_ignored() -> None:
    spec = _spec()
    item = spec["paths"]["/things"]
    item["summary"] = "Things"
    for method in ("put", "post", "delete", "patch"):
        item[method] = {
            "operationId": f"{method}Thing",
            "x-action": f"thing.{method}",
            "x-rate-limit-class": "admin",
        }

    routes = load_routes(spec)

    assert {(r.method, r.action) for r in routes.values()} == {
        ("GET", "thing.list"),
        ("PUT", "thing.put"),
        ("POST", "thing.post"),
        ("DELETE", "thing.delete"),
        ("PATCH", "thing.patch"),
    }


def test_an_empty_spec_has_no_routes() -> None:
    assert load_routes({}) == {}


def test_the_served_spec_loads_with_the_documented_actions() -> None:
    routes = load_routes(load_spec())

    assert routes["listChannelMessages"].action == "message.list"
    assert routes["postChannelMessage"].action == "message.post"
    assert routes["getRunContext"].action == "run.context.read"
    assert routes["getRunContext"].rate_class == "agent_runtime"
    assert routes["healthReady"].rate_class == "health"
    assert all(
        route.action.startswith("admin.") and route.rate_class == "admin"
        for name, route in routes.items()
        if name.startswith("admin")
    )
