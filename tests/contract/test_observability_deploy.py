"""The Grafana dashboard and the Prometheus rules under deploy/ against the metrics.

There is no Grafana here, so the dashboard is checked against a JSON Schema of the
parts Grafana needs (panels, grid positions, Prometheus targets, variables), every
query's PromQL is checked by ``promtool`` (as recording rules), and every metric a
query or an alert names must be one the service exports. ``make observability-check``
runs ``promtool check rules`` and ``promtool test rules`` on the alerts themselves.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from app.http.routes import load_routes, load_spec
from app.observability.metrics import LabelSets, Metrics
from tests.support.services import REPO_ROOT

DASHBOARD = REPO_ROOT / "deploy" / "grafana" / "agent-authz.json"
ALERTS = REPO_ROOT / "deploy" / "prometheus" / "alerts.yml"
PROMTOOL = REPO_ROOT / ".bin" / "promtool"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}

_TARGET = {
    "type": "object",
    "required": ["refId", "expr", "datasource"],
    "properties": {
        "refId": {"type": "string", "pattern": "^[A-Z]$"},
        "expr": {"type": "string", "minLength": 1},
        "legendFormat": {"type": "string"},
        "instant": {"type": "boolean"},
        "datasource": {"const": DATASOURCE},
    },
}
_GRID = {
    "type": "object",
    "required": ["h", "w", "x", "y"],
    "properties": {
        "h": {"type": "integer", "minimum": 1},
        "w": {"type": "integer", "minimum": 1, "maximum": 24},
        "x": {"type": "integer", "minimum": 0, "maximum": 23},
        "y": {"type": "integer", "minimum": 0},
    },
}
_PANEL = {
    "type": "object",
    "required": ["id", "type", "title", "gridPos"],
    "properties": {
        "id": {"type": "integer"},
        "type": {"enum": ["row", "timeseries", "stat"]},
        "title": {"type": "string", "minLength": 1},
        "gridPos": _GRID,
    },
    "if": {"properties": {"type": {"const": "row"}}},
    "then": {"required": ["panels", "collapsed"]},
    "else": {
        "required": ["datasource", "targets", "fieldConfig", "options", "description"],
        "properties": {
            "datasource": {"const": DATASOURCE},
            "targets": {"type": "array", "minItems": 1, "items": _TARGET},
            "fieldConfig": {
                "type": "object",
                "required": ["defaults", "overrides"],
                "properties": {"defaults": {"type": "object", "required": ["unit"]}},
            },
        },
    },
}
SCHEMA = {
    "type": "object",
    "required": ["title", "uid", "schemaVersion", "panels", "templating", "time", "tags"],
    "properties": {
        "uid": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"},
        "schemaVersion": {"type": "integer", "minimum": 36},
        "panels": {"type": "array", "minItems": 1, "items": _PANEL},
        "templating": {
            "type": "object",
            "required": ["list"],
            "properties": {
                "list": {
                    "type": "array",
                    "items": {"type": "object", "required": ["name", "type", "label"]},
                }
            },
        },
    },
    "not": {"required": ["id"]},
}


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    """The dashboard JSON."""
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


def _exprs(dashboard: dict[str, Any]) -> list[str]:
    return [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]


def _metric_names() -> set[str]:
    """Every sample name the service exports (histograms with their suffixes)."""
    metrics = Metrics(LabelSets.from_routes(load_routes(load_spec())))
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
    return {
        family.name + suffix
        for family in metrics.registry.collect()
        for suffix in suffixes[family.type]
    }


def _named(expr: str) -> set[str]:
    return set(re.findall(r"\bagent_authz_[a-z_]+\b", expr))


def _promtool_check(exprs: list[str], tmp_path: Path) -> None:
    """``promtool check rules`` on the expressions, Grafana's variables filled in."""
    rules = [
        {
            "record": f"dashboard:query_{index}",
            "expr": expr.replace("$__rate_interval", "5m")
            .replace("$job", ".+")
            .replace("$instance", ".+"),
        }
        for index, expr in enumerate(exprs)
    ]
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dashboard_has_the_shape_grafana_needs(dashboard: dict[str, Any]) -> None:
    jsonschema.validate(dashboard, SCHEMA)
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        refs = [target["refId"] for target in panel.get("targets", [])]
        assert len(refs) == len(set(refs)), panel["title"]
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    assert variables == {"datasource", "job", "instance"}


def test_panels_do_not_overlap_on_the_grid(dashboard: dict[str, Any]) -> None:
    taken: set[tuple[int, int]] = set()
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        cells = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not cells & taken, panel["title"]
        taken |= cells


def test_every_query_is_valid_promql_on_metrics_the_service_exports(
    dashboard: dict[str, Any], tmp_path: Path
) -> None:
    exprs = _exprs(dashboard)
    exported = _metric_names()

    for expr in exprs:
        named = _named(expr)
        assert named, expr
        assert named <= exported, (expr, named - exported)
        assert 'job=~"$job"' in expr, expr
    _promtool_check(exprs, tmp_path)


def test_the_dashboard_shows_what_operators_asked_for(dashboard: dict[str, Any]) -> None:
    queries = "\n".join(_exprs(dashboard))

    for needed in (
        "sum by (operation) (rate(agent_authz_http_request_duration_seconds_count",
        "sum by (le, operation) (rate(agent_authz_http_request_duration_seconds_bucket",
        "sum by (action, allow) (rate(agent_authz_decisions_total",
        "sum by (reason) (rate(agent_authz_decisions_total",
        "sum by (le, entrypoint) (rate(agent_authz_opa_round_trip_duration_seconds_bucket",
        "sum by (entrypoint, kind) (rate(agent_authz_opa_round_trip_failures_total",
        "sum by (source) (rate(agent_authz_fail_closed_total",
        "agent_authz_db_pool_connections_in_use",
        "agent_authz_db_pool_waiting",
        "agent_authz_rate_limited_total",
        "agent_authz_denial_audit_writes_total",
        "agent_authz_filter_mismatches_total",
    ):
        assert needed in queries, needed


def test_the_only_null_is_grafanas_base_threshold() -> None:
    text = DASHBOARD.read_text(encoding="utf-8")

    assert text.count("null") == 1
    assert re.search(r'"color": "green",\s+"value": null', text)


# The OPA sidecar's own metrics (its status plugin, deploy/opa/config.yaml) that rules
# may name, and the recording rules of alerts.yml.
OPA_STATUS_METRICS = frozenset({"bundle_failed_load_counter"})


def _rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    return [rule for group in loaded["groups"] for rule in group["rules"]]


def test_alert_rules_watch_fail_closed_spikes_and_opa_on_exported_metrics() -> None:
    alerts = {rule["alert"]: rule for rule in _rules() if "alert" in rule}
    exported = _metric_names()

    assert {"AgentAuthzFailClosedSpike", "AgentAuthzOpaUnavailable"} <= set(alerts)
    for name, rule in alerts.items():
        assert _named(rule["expr"]) <= exported, name
        assert rule["labels"]["severity"] in {"page", "ticket"}, name
        assert {"summary", "description", "runbook"} <= set(rule["annotations"]), name
        anchor = rule["annotations"]["runbook"].split("#")[1]
        operations = (REPO_ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
        assert f"### {name}" in operations, anchor
    assert "agent_authz_fail_closed_total" in alerts["AgentAuthzFailClosedSpike"]["expr"]
    assert "agent_authz_opa_round_trip_failures_total" in alerts["AgentAuthzOpaUnavailable"]["expr"]


def test_bundle_rejections_and_diverging_revisions_alert() -> None:
    rules = _rules()
    recorded = {rule["record"]: rule for rule in rules if "record" in rule}
    alerts = {rule["alert"]: rule for rule in rules if "alert" in rule}

    failed = "agent_authz:opa_bundle_failed_loads:sum"
    assert set(re.findall(r"\b[a-z_]+_counter\b", recorded[failed]["expr"])) <= OPA_STATUS_METRICS
    assert failed in alerts["AgentAuthzPolicyBundleRejected"]["expr"]
    assert "agent_authz_policy_revision_info" in alerts["AgentAuthzPolicyRevisionsDiverge"]["expr"]


def test_the_sidecars_configuration_is_the_same_everywhere() -> None:
    deploy = yaml.safe_load((REPO_ROOT / "deploy" / "opa" / "config.yaml").read_text())
    configmap = yaml.safe_load((REPO_ROOT / "deploy" / "k8s" / "opa-config.yaml").read_text())
    working_tree = yaml.safe_load(
        (REPO_ROOT / "deploy" / "opa" / "config.working-tree.yaml").read_text()
    )

    assert yaml.safe_load(configmap["data"]["config.yaml"]) == deploy
    # make run and the tests serve policies/ with the same settings, less the bundle.
    assert working_tree == {
        key: value for key, value in deploy.items() if key not in {"services", "bundles"}
    }
    assert deploy["decision_logs"]["request_context"] == {"http": {"headers": ["X-Correlation-Id"]}}
