#!/usr/bin/env bash
# Build the pinned policy tools (OPA and Regal) and the manifest tools (kubeconform and
# kustomize, for `make manifests-check`) into the repository's .bin/, and put promtool
# (Prometheus' rule and config checker, for `make observability-check`) there from
# Debian's prometheus package. A tool is rebuilt only when its binary is missing or
# reports another version. Works from any directory.
set -euo pipefail

OPA_VERSION="1.22.3"
REGAL_VERSION="0.42.0"
KUBECONFORM_VERSION="0.8.0"
KUSTOMIZE_VERSION="5.8.1"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="$ROOT/.bin"
mkdir -p "$BIN"

# Prints the version a tool reports on its "Version:" line, or nothing.
installed_version() {
	local binary="$1"
	if [[ -x "$binary" ]]; then
		{ "$binary" version 2>/dev/null || true; } | awk '$1 == "Version:" { print $2; exit }'
	fi
}

# Regal takes its version only from -ldflags (a plain `go install` reports
# "unknown"), and `go install regal@vX` fails when the module proxy refuses to
# list Regal's versions (stray v2.x tags), so download the pinned module and run
# `go install` inside it, as Regal's release build does.
build_regal() {
	local have module dir
	have="$(installed_version "$BIN/regal")"
	if [[ "$have" == "$REGAL_VERSION" ]]; then
		echo "regal $REGAL_VERSION already in .bin/regal"
		return
	fi
	echo "building regal $REGAL_VERSION into .bin/regal (found: ${have:-none})"
	module="github.com/open-policy-agent/regal"
	go mod download "${module}@v${REGAL_VERSION}"
	dir="$(go env GOMODCACHE)/${module}@v${REGAL_VERSION}"
	(
		cd "$dir"
		GOWORK=off GOBIN="$BIN" go install \
			-ldflags "-X ${module}/pkg/version.Version=${REGAL_VERSION}" .
	)
}

# The version of the main module a Go binary was built from (`go version -m`), or
# nothing. kubeconform reports "development" itself when built with `go install`.
module_version() {
	local binary="$1"
	if [[ -x "$binary" ]]; then
		{ go version -m "$binary" 2>/dev/null || true; } | awk '$1 == "mod" { sub(/^v/, "", $3); print $3; exit }'
	fi
}

# go install MODULE/PACKAGE@vVERSION into .bin/NAME unless that version is there.
build_go_tool() {
	local name="$1" package="$2" version="$3" have
	have="$(module_version "$BIN/$name")"
	if [[ "$have" == "$version" ]]; then
		echo "$name $version already in .bin/$name"
		return
	fi
	echo "building $name $version into .bin/$name (found: ${have:-none})"
	GOBIN="$BIN" go install "${package}@v${version}"
}

# promtool from Debian's prometheus package (whatever version the archive serves; the
# rules use nothing newer than Prometheus 2.x). Only the one binary is extracted: the
# package is downloaded, not installed, so no Prometheus server is set up.
fetch_promtool() {
	local dir sudo_cmd=""
	if [[ -x "$BIN/promtool" ]] && "$BIN/promtool" --version >/dev/null 2>&1; then
		echo "promtool already in .bin/promtool"
		return
	fi
	echo "fetching promtool from Debian's prometheus package into .bin/promtool"
	if [[ "$(id -u)" -ne 0 ]]; then sudo_cmd="sudo"; fi
	if ! apt-cache show prometheus >/dev/null 2>&1; then
		$sudo_cmd apt-get update -qq
	fi
	dir="$(mktemp -d)"
	# apt's sandbox user must be able to write the download directory.
	chmod 755 "$dir"
	(cd "$dir" && apt-get download -qq prometheus 2>/dev/null) || {
		rm -rf "$dir"
		echo "could not download Debian's prometheus package (for promtool)" >&2
		return 1
	}
	dpkg-deb -x "$dir"/prometheus_*.deb "$dir/root"
	install -m 0755 "$dir/root/usr/bin/promtool" "$BIN/promtool"
	rm -rf "$dir"
}

build_go_tool opa github.com/open-policy-agent/opa "$OPA_VERSION"
build_regal
build_go_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION"
build_go_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION"
fetch_promtool

echo "opa $(installed_version "$BIN/opa"), regal $(installed_version "$BIN/regal"), kubeconform $(module_version "$BIN/kubeconform"), kustomize $(module_version "$BIN/kustomize"), $("$BIN/promtool" --version 2>&1 | head -n 1) in .bin/"
