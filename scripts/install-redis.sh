#!/usr/bin/env bash
# Make sure the Redis server binary exists; install Debian's redis-server package when missing.
# Prints the path of redis-server on stdout (the last line), so callers can do:
#   REDIS_SERVER=$(scripts/install-redis.sh | tail -1)
# redis-cli comes with it (the package depends on redis-tools).
#
# Debian's package also ships a system service on port 6379; `make run` and the tests
# never use it: they start their own redis-server on another port (scripts/run.sh,
# tests/support/services.py).
set -euo pipefail

find_bin() {
  local candidate
  for candidate in "$(command -v redis-server 2>/dev/null || true)" /usr/bin/redis-server /usr/sbin/redis-server; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

if ! bin=$(find_bin); then
  echo "Redis server not found; installing Debian's redis-server package" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  # Wait for another apt-get or dpkg run on the machine instead of failing at once.
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=300 install -y -qq redis-server >&2
  bin=$(find_bin)
fi
echo "$bin"
