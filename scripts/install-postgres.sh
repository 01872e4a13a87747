#!/usr/bin/env bash
# Make sure PostgreSQL server binaries (initdb, pg_ctl) exist; install Debian's package when missing.
# Prints the bin directory on stdout (the last line), so callers can do: PGBIN=$(scripts/install-postgres.sh | tail -1)
set -euo pipefail

find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

if ! bin=$(find_bin); then
  echo "PostgreSQL server not found; installing Debian's postgresql package" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq postgresql >&2
  bin=$(find_bin)
fi
echo "$bin"
