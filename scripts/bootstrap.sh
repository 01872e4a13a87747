#!/usr/bin/env bash
# Create the project's virtual environment (.venv) and install the package with its
# dev extras. pip runs only when pyproject.toml changed since the last successful
# install (stamp file .venv/.installed-<sha256 of pyproject.toml>).
# Quiet when nothing changes; errors are shown. Works from any directory.
#
# Environment: PYTHON names the interpreter to create the venv with (default:
# python3.11 when present, else python3); it must be Python 3.11 or 3.12.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"

supported() {
	"$1" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 13) else 1)' \
		2>/dev/null
}

pick_python() {
	local candidate
	if [[ -n "${PYTHON:-}" ]]; then
		if supported "$PYTHON"; then
			echo "$PYTHON"
			return 0
		fi
		echo "bootstrap: PYTHON=$PYTHON is not Python 3.11 or 3.12" >&2
		return 1
	fi
	for candidate in python3.11 python3 python3.12; do
		if command -v "$candidate" >/dev/null 2>&1 && supported "$candidate"; then
			echo "$candidate"
			return 0
		fi
	done
	echo "bootstrap: Python 3.11 (or 3.12) not found; install python3 (Debian: apt-get install python3 python3-venv)" >&2
	return 1
}

# Debian splits venv/ensurepip into python3-venv; install it when missing.
ensure_venv_module() {
	local python="$1" version sudo_cmd=""
	if "$python" -c 'import ensurepip, venv' 2>/dev/null; then
		return 0
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "bootstrap: $python lacks the venv/ensurepip modules; install them for your system" >&2
		return 1
	fi
	version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
	if [[ "$(id -u)" -ne 0 ]]; then sudo_cmd="sudo"; fi
	echo "bootstrap: installing python${version}-venv with apt-get" >&2
	$sudo_cmd apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "python${version}-venv" >&2
}

venv_usable() {
	[[ -x "$VENV/bin/python" ]] && supported "$VENV/bin/python" \
		&& "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

if ! venv_usable; then
	python="$(pick_python)"
	ensure_venv_module "$python"
	if [[ -e "$VENV" ]]; then
		echo "bootstrap: .venv is broken or uses an unsupported Python; recreating it" >&2
		rm -rf "$VENV"
	fi
	echo "bootstrap: creating .venv with $("$python" --version 2>&1)"
	"$python" -m venv "$VENV"
fi

hash="$(sha256sum pyproject.toml | cut -d' ' -f1)"
stamp="$VENV/.installed-$hash"
if [[ ! -f "$stamp" ]]; then
	echo "bootstrap: installing Python dependencies into .venv (pyproject.toml changed)"
	# Build-backend warnings are noise here: keep the output in a log, show it on failure.
	log="$VENV/pip-install.log"
	if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[dev]' \
		>"$log" 2>&1; then
		cat "$log" >&2
		echo "bootstrap: pip install -e '.[dev]' failed (log: .venv/pip-install.log)" >&2
		exit 1
	fi
	rm -f "$VENV"/.installed-*
	touch "$stamp"
fi
