#!/usr/bin/env bash
# Validate the deployment manifests offline: `make manifests-check`, part of `make test`.
#
# 1. Render deploy/k8s with the pinned kustomize (.bin/kustomize, what `kubectl
#    kustomize` runs) into .data/manifests/k8s.yaml.
# 2. Validate it, and deploy/k8s/migrate-job.yaml (created once per release, outside the
#    kustomization), with the pinned kubeconform in strict mode (unknown fields and
#    resources without a schema fail) against the Kubernetes JSON schemas of
#    KUBERNETES_VERSION (default 1.33.0). kubeconform's default schema location is on
#    GitHub, which CI cannot reach: the schemas come from the PyPI package
#    kubernetes-validate (a dev extra, so .venv has it), copied once into
#    .data/kubernetes-json-schema/ with their absolute "$ref"s pointed at the local
#    definitions file.
# 3. `docker compose config --quiet` over docker-compose.yml when the compose plugin is
#    installed (it needs no Docker engine); skipped with a note otherwise.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" manifests

KUBERNETES_VERSION="${KUBERNETES_VERSION:-1.33.0}"
KUBECONFORM="$ROOT/.bin/kubeconform"
KUSTOMIZE="$ROOT/.bin/kustomize"
OUT="$ROOT/.data/manifests"
SCHEMAS="$ROOT/.data/kubernetes-json-schema"

[[ -x "$KUBECONFORM" && -x "$KUSTOMIZE" ]] || die ".bin/kubeconform or .bin/kustomize missing: run make tools"
require_venv

# --- the schemas, from the installed kubernetes-validate package ----------------------
read -r package package_version < <(
	"$PYTHON" -c 'import importlib.metadata as m, kubernetes_validate, os
print(os.path.dirname(kubernetes_validate.__file__), m.version("kubernetes-validate"))'
) || die "the kubernetes-validate package is missing from .venv: run make venv"
flavour="v${KUBERNETES_VERSION}-local-strict"
source_dir="$package/kubernetes-json-schema/$flavour"
[[ -d "$source_dir" ]] || die "kubernetes-validate $package_version has no schemas for Kubernetes $KUBERNETES_VERSION"
target="$SCHEMAS/$flavour"
stamp="kubernetes-validate $package_version"
if [[ "$(cat "$target/.source" 2>/dev/null)" != "$stamp" ]]; then
	rm -rf "$target"
	mkdir -p "$target"
	cp "$source_dir"/*.json "$target/"
	# The schemas refer to their shared definitions as "/api/_definitions.json", relative
	# to their https $id; point those references at the local file instead.
	find "$target" -name '*.json' -print0 |
		xargs -0 sed -i "s|\"/api/_definitions.json#|\"file://$target/_definitions.json#|g"
	printf '%s\n' "$stamp" >"$target/.source"
fi

# --- render and validate ---------------------------------------------------------------
mkdir -p "$OUT"
"$KUSTOMIZE" build deploy/k8s >"$OUT/k8s.yaml"
"$KUBECONFORM" -strict -summary \
	-kubernetes-version "$KUBERNETES_VERSION" \
	-schema-location "$SCHEMAS/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
	"$OUT/k8s.yaml" deploy/k8s/migrate-job.yaml

# --- compose ---------------------------------------------------------------------------
if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
	docker compose -f docker-compose.yml config --quiet
	echo "docker compose config: docker-compose.yml is valid"
else
	echo "docker compose config: skipped (the docker compose plugin is not installed)"
fi
