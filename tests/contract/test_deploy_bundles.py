"""The deployments run signed bundles only, and what the operators' walk-through found.

kubeconform validates the manifests' schema (``make manifests-check``); this checks what
a schema cannot: the sidecars pull verified bundles (no policy ConfigMap is left), a pod
is ready only with an activated bundle, the app refuses unsigned policy, the worker
count follows the CPU limit, the metrics ports are fenced, and compose waits for OPA.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.support.services import REPO_ROOT

K8S = REPO_ROOT / "deploy" / "k8s"


def _load(path: str) -> Any:
    return yaml.safe_load((REPO_ROOT / path).read_text(encoding="utf-8"))


def _pod() -> dict[str, Any]:
    pod: dict[str, Any] = _load("deploy/k8s/deployment.yaml")["spec"]["template"]["spec"]
    return pod


def _container(name: str) -> dict[str, Any]:
    containers: list[dict[str, Any]] = [c for c in _pod()["containers"] if c["name"] == name]
    (container,) = containers
    return container


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {item["name"]: item.get("value", item.get("valueFrom")) for item in container["env"]}


def test_the_sidecar_pulls_verified_bundles_and_no_policy_config_map_is_left() -> None:
    opa = _container("opa")
    keys = [arg for arg in opa["args"] if arg.startswith("--set-file=keys.")]
    mounts = {mount["name"]: mount["mountPath"] for mount in opa["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in _pod()["volumes"]}

    assert "--config-file=/config/config.yaml" in opa["args"]
    assert not [arg for arg in opa["args"] if "bundle" in arg and not arg.startswith("--set")]
    assert keys == ["--set-file=keys.agent-authz-1.key=/keys/agent-authz-1.pem"]
    assert mounts["policy-keys"] == "/keys"
    assert volumes["policy-keys"]["secret"]["secretName"] == "agent-authz-policy-keys"
    assert "BUNDLE_SERVICE_URL" in _env(opa)
    assert not [v for v in volumes.values() if "configMap" in v and v["name"] != "opa-config"]
    kustomization = (K8S / "kustomization.yaml").read_text(encoding="utf-8")
    assert "configMapGenerator" not in kustomization
    assert not (K8S / "bundle.tar.gz").exists()


def test_a_pod_is_ready_only_with_an_activated_bundle_and_decides_only_with_one() -> None:
    assert _container("opa")["readinessProbe"]["httpGet"]["path"] == "/health?bundles"
    assert _container("opa")["livenessProbe"]["httpGet"]["path"] == "/health"
    assert _container("app")["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert _env(_container("app"))["POLICY_REQUIRE_BUNDLE_REVISION"] == "true"


def test_the_worker_count_follows_the_cpu_limit() -> None:
    app = _container("app")
    workers = _env(app)["SERVER_WORKERS"]

    assert workers == {
        "resourceFieldRef": {"containerName": "app", "resource": "limits.cpu", "divisor": "1"}
    }
    limits = app["resources"]["limits"]
    assert re.fullmatch(r"[1-9][0-9]*", limits["cpu"])
    memory = int(limits["memory"].removesuffix("Mi"))
    # About 256Mi per worker on top of a base, so a worker count set by the CPU limit
    # cannot outgrow the memory limit.
    assert memory >= 256 * (int(limits["cpu"]) + 1)


def test_the_metrics_ports_are_open_to_prometheus_only() -> None:
    policy = _load("deploy/k8s/networkpolicy.yaml")
    kustomization = _load("deploy/k8s/kustomization.yaml")

    assert "networkpolicy.yaml" in kustomization["resources"]
    assert policy["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "agent-authz"}
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    open_to_all, scraper = policy["spec"]["ingress"]
    assert "from" not in open_to_all
    assert [port["port"] for port in open_to_all["ports"]] == ["http"]
    assert [port["port"] for port in scraper["ports"]] == ["metrics", "opa-diag"]
    assert scraper["from"][0]["podSelector"]["matchLabels"] == {
        "app.kubernetes.io/name": "prometheus"
    }
    ports = {p["name"] for c in _pod()["containers"] for p in c.get("ports", [])}
    assert ports == {"http", "metrics", "opa-diag"}


def test_compose_serves_the_signed_bundle_and_the_app_waits_for_a_healthy_opa() -> None:
    services = _load("docker-compose.yml")["services"]
    opa, app = services["opa"], services["app"]

    assert "/policies" not in " ".join(opa.get("volumes", []))
    assert "./deploy/opa/config.yaml:/config/config.yaml:ro" in opa["volumes"]
    assert opa["secrets"] == ["policy_verification_key"]
    assert opa["environment"]["BUNDLE_SERVICE_URL"] == "http://bundles:8282"
    assert "/health?bundles" in opa["healthcheck"]["test"][-1]
    assert app["depends_on"]["opa"] == {"condition": "service_healthy"}
    assert app["environment"]["POLICY_REQUIRE_BUNDLE_REVISION"] == "true"
    assert "bundle_service.py" in " ".join(services["bundles"]["command"])
