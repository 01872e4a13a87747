# Shared start of scripts/build-bundle.sh and scripts/check-manifests.sh, sourced, not run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" bundle
#
# Sets ROOT (the checkout) and PYTHON (.venv's interpreter), changes to ROOT, and defines
# die, which prints "<tag>: <message>" on stderr (the tag is the argument given to
# source) and exits 1.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="$ROOT/.venv/bin/python"
SCRIPT_TAG="$1"

die() {
	printf '%s: %s\n' "$SCRIPT_TAG" "$*" >&2
	exit 1
}

# Stop unless .venv has its interpreter (the caller needs PYTHON).
require_venv() {
	[[ -x "$PYTHON" ]] || die ".venv missing: run make venv"
}
