#!/usr/bin/env bash
# Start the service locally with its dependencies: `make run` calls this after `make deps`.
#
# 1. PostgreSQL: unless DATABASE_URL is set, a local cluster under .data/pg (created
#    on first use) on 127.0.0.1:$PGPORT_LOCAL (default 54329); the database
#    agent_authz is dropped and created again on every start, so the demo world is
#    fresh each run.
# 2. OPA: unless OPA_URL is set, .bin/opa on 127.0.0.1:$OPA_PORT (default 8181),
#    decision logs to .data/opa.log. By default it serves the working tree's policies/
#    (with --watch, *_test.rego ignored; deploy/opa/config.working-tree.yaml). With
#    POLICY_BUNDLE=path (a bundle `make bundle` built) it runs the production path
#    instead: scripts/bundle_service.py serves that file on 127.0.0.1:$BUNDLE_SERVICE_PORT
#    (default 8182), OPA pulls it with deploy/opa/config.yaml and verifies it with the
#    public key BUNDLE_VERIFICATION_KEY under the key id BUNDLE_KEY_ID (default: the
#    development key pair of `make bundle`, agent-authz-dev), and the app decides only
#    with a signed bundle (POLICY_REQUIRE_BUNDLE_REVISION=true). Rebuilding the bundle
#    at that path activates the new revision within the polling interval.
# 3. Redis for the rate limits: unless RATE_LIMIT_STORAGE is set, a local redis-server
#    (Debian's package, scripts/install-redis.sh) on 127.0.0.1:$REDIS_PORT (default: the
#    first free port from 63790), data and log under .data/redis, no persistence; the
#    API's workers share their rate-limit windows there (RATE_LIMIT_STORAGE).
# 4. python -m app migrate, then python -m app world load $WORLD (default
#    examples/demo-world.yaml); the key-to-id map is saved to .data/world.json.
# 5. python -m app serve on $HOST:$PORT (default 127.0.0.1:8080), with the metrics
#    listener on 127.0.0.1:$METRICS_PORT (default 9464; 0 turns metrics off); once
#    /readyz answers, a ready-to-paste curl for the context of the world's first run is
#    printed. Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md);
#    OPA's spans then go to the same collector (OPA_TRACING_ADDRESS, derived from it).
#
# On exit (Ctrl-C, TERM or the server stopping) the OPA, Redis and PostgreSQL this
# script started are stopped; services it did not start are left alone. DATA_DIR moves
# the local state (default .data).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
START_DIR="$PWD"

PORT="${PORT:-8080}"
HOST="${HOST:-127.0.0.1}"
PGPORT_LOCAL="${PGPORT_LOCAL:-54329}"
OPA_PORT="${OPA_PORT:-8181}"
BUNDLE_SERVICE_PORT="${BUNDLE_SERVICE_PORT:-8182}"
METRICS_PORT="${METRICS_PORT:-9464}"
WORLD="${WORLD:-examples/demo-world.yaml}"
DB_NAME="agent_authz"

# A relative WORLD is relative to the directory the user ran the command in, falling
# back to the repository root (make runs recipes there).
if [[ "$WORLD" != /* ]]; then
	if [[ -f "$START_DIR/$WORLD" ]]; then
		WORLD="$START_DIR/$WORLD"
	else
		WORLD="$ROOT/$WORLD"
	fi
fi
# POLICY_BUNDLE and BUNDLE_VERIFICATION_KEY likewise.
absolute() {
	if [[ "$1" == /* ]]; then
		printf '%s\n' "$1"
	elif [[ -e "$START_DIR/$1" ]]; then
		printf '%s\n' "$START_DIR/$1"
	else
		printf '%s\n' "$ROOT/$1"
	fi
}
POLICY_BUNDLE="${POLICY_BUNDLE:-}"
if [[ -n "$POLICY_BUNDLE" ]]; then
	POLICY_BUNDLE="$(absolute "$POLICY_BUNDLE")"
	if [[ -n "${BUNDLE_VERIFICATION_KEY:-}" ]]; then
		BUNDLE_VERIFICATION_KEY="$(absolute "$BUNDLE_VERIFICATION_KEY")"
		BUNDLE_KEY_ID="${BUNDLE_KEY_ID:-agent-authz-1}"
	else
		BUNDLE_VERIFICATION_KEY="$ROOT/.data/bundle-keys/dev-verification.pem"
		BUNDLE_KEY_ID="${BUNDLE_KEY_ID:-agent-authz-dev}"
	fi
fi
cd "$ROOT"

PYTHON="$ROOT/.venv/bin/python"
OPA_BIN="$ROOT/.bin/opa"
DATA="${DATA_DIR:-$ROOT/.data}"
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"

say() { printf '==> %s\n' "$*"; }
# Runs a command from / so that, run as postgres, it does not warn about a working
# directory it cannot enter.
from_root_dir() { (cd / && "$@"); }
note() { printf '    %s\n' "$*"; }
die() {
	printf 'run: %s\n' "$*" >&2
	exit 1
}

[[ -x "$PYTHON" ]] || die ".venv missing: run make venv (or make run)"
[[ -f "$WORLD" ]] || die "world file not found: $WORLD"
if [[ -n "$POLICY_BUNDLE" ]]; then
	[[ -z "${OPA_URL:-}" ]] || die "set POLICY_BUNDLE or OPA_URL, not both (POLICY_BUNDLE starts an OPA of its own)"
	[[ -f "$POLICY_BUNDLE" ]] || die "POLICY_BUNDLE=$POLICY_BUNDLE: no such file (build one with make bundle)"
	[[ -f "$BUNDLE_VERIFICATION_KEY" ]] ||
		die "no verification key at $BUNDLE_VERIFICATION_KEY (set BUNDLE_VERIFICATION_KEY to the public key the bundle was signed for)"
fi

# True when something accepts TCP connections on 127.0.0.1:$1.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# True when GET $1 answers 2xx within 2 seconds.
if command -v curl >/dev/null 2>&1; then
	http_ok() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }
else
	http_ok() {
		"$PYTHON" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
			"$1" 2>/dev/null
	}
fi

# ---------------------------------------------------------------------------
# Cleanup: stop only what this script started.
SERVE_PID=""
OPA_PID=""
REDIS_PID=""
BUNDLE_SERVICE_PID=""
PG_STARTED=0
PG_CTL=()
PGDATA_DIR=""
TEMP_SOCK_DIR=""

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -n "$SERVE_PID" ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID" 2>/dev/null || true
		wait "$SERVE_PID" 2>/dev/null || true
	fi
	if [[ -n "$OPA_PID" ]] && kill -0 "$OPA_PID" 2>/dev/null; then
		say "stopping OPA (pid $OPA_PID)"
		kill -TERM "$OPA_PID" 2>/dev/null || true
		wait "$OPA_PID" 2>/dev/null || true
	fi
	if [[ -n "$REDIS_PID" ]] && kill -0 "$REDIS_PID" 2>/dev/null; then
		say "stopping Redis (pid $REDIS_PID)"
		kill -TERM "$REDIS_PID" 2>/dev/null || true
		wait "$REDIS_PID" 2>/dev/null || true
	fi
	if [[ -n "$BUNDLE_SERVICE_PID" ]] && kill -0 "$BUNDLE_SERVICE_PID" 2>/dev/null; then
		kill -TERM "$BUNDLE_SERVICE_PID" 2>/dev/null || true
		wait "$BUNDLE_SERVICE_PID" 2>/dev/null || true
	fi
	if [[ "$PG_STARTED" == 1 ]]; then
		say "stopping PostgreSQL ($PGDATA_DIR)"
		from_root_dir "${PG_CTL[@]}" -D "$PGDATA_DIR" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [[ -n "$TEMP_SOCK_DIR" ]]; then
		rm -rf "$TEMP_SOCK_DIR"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------
# PostgreSQL
USER_DATABASE=0
if [[ -n "${DATABASE_URL:-}" ]]; then
	USER_DATABASE=1
	say "PostgreSQL: using DATABASE_URL from the environment (no local cluster, database kept)"
else
	PGBIN="$(bash "$ROOT/scripts/install-postgres.sh" | tail -n 1)"
	[[ -x "$PGBIN/pg_ctl" ]] || die "PostgreSQL binaries not found (scripts/install-postgres.sh said: $PGBIN)"
	PG_DIR="$DATA/pg"
	AS_PG=()
	if [[ "$(id -u)" -eq 0 ]]; then
		# The server refuses to run as root: run initdb and pg_ctl as postgres.
		id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user"
		AS_PG=(runuser -u postgres --)
		mkdir -p "$PG_DIR"
		chown postgres:postgres "$PG_DIR"
		if ! from_root_dir "${AS_PG[@]}" test -w "$PG_DIR"; then
			# The postgres user cannot reach the repository (e.g. a clone under /root):
			# keep the cluster in a private directory outside it instead.
			PG_DIR="/var/tmp/agent-authz-pg-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
			note "the postgres user cannot write .data/pg; using $PG_DIR instead"
			mkdir -p "$PG_DIR"
			chown postgres:postgres "$PG_DIR"
			chmod 700 "$PG_DIR"
		fi
	else
		mkdir -p "$PG_DIR"
	fi
	PGDATA_DIR="$PG_DIR/data"
	SOCK_DIR="$PG_DIR"
	if (( ${#SOCK_DIR} > 80 )); then
		# Unix socket paths are limited to about 107 bytes.
		SOCK_DIR="$(mktemp -d /tmp/agent-authz-pgsock.XXXXXX)"
		TEMP_SOCK_DIR="$SOCK_DIR"
		if [[ ${#AS_PG[@]} -gt 0 ]]; then chown postgres:postgres "$SOCK_DIR"; fi
	fi
	PG_CTL=("${AS_PG[@]}" "$PGBIN/pg_ctl")
	major="$("$PGBIN/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"

	if from_root_dir "${PG_CTL[@]}" -D "$PGDATA_DIR" status >/dev/null 2>&1; then
		PGPORT_LOCAL="$(sed -n 4p "$PGDATA_DIR/postmaster.pid")"
		say "PostgreSQL: the cluster in $PGDATA_DIR is already running on port $PGPORT_LOCAL; using it and leaving it running"
	else
		if [[ -f "$PGDATA_DIR/PG_VERSION" && "$(cat "$PGDATA_DIR/PG_VERSION")" != "$major" ]]; then
			note "the cluster in $PGDATA_DIR is from PostgreSQL $(cat "$PGDATA_DIR/PG_VERSION"), not $major; recreating it"
			rm -rf "$PGDATA_DIR"
		fi
		if [[ ! -f "$PGDATA_DIR/PG_VERSION" ]]; then
			say "PostgreSQL: creating a cluster in $PGDATA_DIR (first run)"
			rm -rf "$PGDATA_DIR"
			from_root_dir "${AS_PG[@]}" "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 \
				>"$DATA/initdb.log" 2>&1 || {
				cat "$DATA/initdb.log" >&2
				die "initdb failed"
			}
		fi
		if port_busy "$PGPORT_LOCAL"; then
			die "port $PGPORT_LOCAL is in use: set PGPORT_LOCAL to a free port (or DATABASE_URL)"
		fi
		say "PostgreSQL: starting on 127.0.0.1:$PGPORT_LOCAL (log: $PG_DIR/server.log)"
		from_root_dir "${PG_CTL[@]}" -D "$PGDATA_DIR" -l "$PG_DIR/server.log" -w -t 60 \
			-o "-p $PGPORT_LOCAL -k $SOCK_DIR -c listen_addresses=127.0.0.1" start >/dev/null || {
			tail -n 20 "$PG_DIR/server.log" >&2 || true
			die "PostgreSQL did not start"
		}
		PG_STARTED=1
	fi
	say "PostgreSQL: recreating database $DB_NAME (the demo world is reset on every run)"
	psql_admin=(env PGOPTIONS="-c client_min_messages=warning" "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT_LOCAL" -U postgres -d postgres)
	"${psql_admin[@]}" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null
	"${psql_admin[@]}" -c "CREATE DATABASE $DB_NAME" >/dev/null
	DATABASE_URL="postgresql://postgres@127.0.0.1:$PGPORT_LOCAL/$DB_NAME"
fi
export DATABASE_URL

# ---------------------------------------------------------------------------
# Tracing: OPA exports to the collector the app uses (host:port of the OTLP/HTTP
# endpoint), unless OPA_TRACING_ADDRESS names one itself.
OTLP_ENDPOINT="${OTEL_EXPORTER_OTLP_ENDPOINT:-${OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:-}}"
if [[ -n "$OTLP_ENDPOINT" && -z "${OPA_TRACING_ADDRESS:-}" ]]; then
	OPA_TRACING_ADDRESS="${OTLP_ENDPOINT#*://}"
	OPA_TRACING_ADDRESS="${OPA_TRACING_ADDRESS%%/*}"
fi
export OPA_TRACING_ADDRESS="${OPA_TRACING_ADDRESS:-}"

# ---------------------------------------------------------------------------
# OPA
if [[ -n "${OPA_URL:-}" ]]; then
	say "OPA: using OPA_URL=$OPA_URL from the environment (policies/ must be loaded there)"
else
	[[ -x "$OPA_BIN" ]] || die ".bin/opa missing: run make tools"
	if port_busy "$OPA_PORT"; then
		die "port $OPA_PORT is in use: set OPA_PORT to a free port, or OPA_URL to use a running OPA"
	fi
	# Emptied at each start, then written in append mode so that logrotate's
	# copytruncate can rotate it while OPA runs (docs/reliability.md).
	: >"$DATA/opa.log"
	OPA_URL="http://127.0.0.1:$OPA_PORT"
	if [[ -z "$POLICY_BUNDLE" ]]; then
		say "OPA: starting on 127.0.0.1:$OPA_PORT with the working tree's policies/ (decision logs: .data/opa.log)"
		"$OPA_BIN" run --server --addr "127.0.0.1:$OPA_PORT" \
			--config-file deploy/opa/config.working-tree.yaml --ignore '*_test.rego' --watch policies \
			>>"$DATA/opa.log" 2>&1 &
		OPA_PID=$!
		ready_path="/health"
	else
		if port_busy "$BUNDLE_SERVICE_PORT"; then
			die "port $BUNDLE_SERVICE_PORT is in use: set BUNDLE_SERVICE_PORT to a free port"
		fi
		say "bundle service: serving $POLICY_BUNDLE on 127.0.0.1:$BUNDLE_SERVICE_PORT (log: .data/bundle-service.log)"
		"$PYTHON" scripts/bundle_service.py --port "$BUNDLE_SERVICE_PORT" \
			"bundles/agent-authz.tar.gz=$POLICY_BUNDLE" >"$DATA/bundle-service.log" 2>&1 &
		BUNDLE_SERVICE_PID=$!
		for _ in $(seq 1 100); do
			port_busy "$BUNDLE_SERVICE_PORT" && break
			kill -0 "$BUNDLE_SERVICE_PID" 2>/dev/null || break
			sleep 0.1
		done
		port_busy "$BUNDLE_SERVICE_PORT" || die "the bundle service did not start (see .data/bundle-service.log)"
		say "OPA: starting on 127.0.0.1:$OPA_PORT, pulling the signed bundle (key id $BUNDLE_KEY_ID; decision logs: .data/opa.log)"
		BUNDLE_SERVICE_URL="http://127.0.0.1:$BUNDLE_SERVICE_PORT" \
			"$OPA_BIN" run --server --addr "127.0.0.1:$OPA_PORT" --config-file deploy/opa/config.yaml \
			--set-file "keys.$BUNDLE_KEY_ID.key=$BUNDLE_VERIFICATION_KEY" \
			>>"$DATA/opa.log" 2>&1 &
		OPA_PID=$!
		# Ready only once the bundle is verified and active, as the pod's readiness.
		ready_path="/health?bundles"
		export POLICY_REQUIRE_BUNDLE_REVISION=true
	fi
	for _ in $(seq 1 600); do
		kill -0 "$OPA_PID" 2>/dev/null || {
			tail -n 20 "$DATA/opa.log" >&2
			die "OPA exited during start-up"
		}
		http_ok "$OPA_URL$ready_path" && break
		# The bundle service is up, so a failed load is the bundle's fault (signature,
		# key id, not a bundle): say so now instead of waiting for the next poll.
		if [[ -n "$POLICY_BUNDLE" ]] && grep -q 'Bundle load failed\|Bundle activation failed' "$DATA/opa.log"; then
			break
		fi
		sleep 0.1
	done
	if ! http_ok "$OPA_URL$ready_path"; then
		if [[ -n "$POLICY_BUNDLE" ]]; then
			grep -E 'Bundle load failed|Bundle activation failed' "$DATA/opa.log" | tail -n 1 >&2 || true
			die "OPA did not activate the bundle (not signed for key id $BUNDLE_KEY_ID with $BUNDLE_VERIFICATION_KEY? see .data/opa.log)"
		fi
		die "OPA did not become healthy (see .data/opa.log)"
	fi
fi
export OPA_URL

# ---------------------------------------------------------------------------
# Redis: the rate-limit windows, shared by the API's workers (docs/adr/0019).
# True when a Redis server on 127.0.0.1:$1 answers PING.
redis_ping() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&3
		IFS= read -r -t 2 reply <&3 || exit 1
		[[ "$reply" == "+PONG"* ]]
	) 2>/dev/null
}

if [[ -n "${RATE_LIMIT_STORAGE:-}" ]]; then
	say "Redis: using RATE_LIMIT_STORAGE from the environment (no local Redis)"
else
	REDIS_BIN="$(bash "$ROOT/scripts/install-redis.sh" | tail -n 1)"
	[[ -x "$REDIS_BIN" ]] || die "redis-server not found (scripts/install-redis.sh said: $REDIS_BIN)"
	if [[ -n "${REDIS_PORT:-}" ]]; then
		port_busy "$REDIS_PORT" && die "port $REDIS_PORT is in use: set REDIS_PORT to a free port"
	else
		REDIS_PORT=63790
		while port_busy "$REDIS_PORT"; do
			REDIS_PORT=$((REDIS_PORT + 1))
			((REDIS_PORT < 63890)) || die "no free port in 63790-63889 for Redis: set REDIS_PORT"
		done
	fi
	REDIS_DIR="$DATA/redis"
	mkdir -p "$REDIS_DIR"
	say "Redis: starting on 127.0.0.1:$REDIS_PORT for the rate limits (log: ${REDIS_DIR#"$ROOT"/}/redis.log)"
	# No persistence: rate-limit windows last a minute, and the demo is reset each run.
	"$REDIS_BIN" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$REDIS_DIR" \
		--save '' --appendonly no --logfile "$REDIS_DIR/redis.log" &
	REDIS_PID=$!
	for _ in $(seq 1 100); do
		kill -0 "$REDIS_PID" 2>/dev/null || {
			tail -n 20 "$REDIS_DIR/redis.log" >&2 || true
			die "Redis exited during start-up"
		}
		redis_ping "$REDIS_PORT" && break
		sleep 0.1
	done
	redis_ping "$REDIS_PORT" || die "Redis did not answer on port $REDIS_PORT (see $REDIS_DIR/redis.log)"
	RATE_LIMIT_STORAGE="redis://127.0.0.1:$REDIS_PORT/0"
fi
export RATE_LIMIT_STORAGE

# ---------------------------------------------------------------------------
# Schema and world
say "migrating the database"
"$PYTHON" -m app migrate

WORLD_JSON="$DATA/world.json"
say "loading the world ${WORLD#"$ROOT"/}"
load_err="$DATA/world-load.err"
if "$PYTHON" -m app world load "$WORLD" >"$WORLD_JSON.tmp" 2>"$load_err"; then
	mv "$WORLD_JSON.tmp" "$WORLD_JSON"
	note "key and handle to id map: ${WORLD_JSON#"$ROOT"/}"
	WORLD_LOADED=1
else
	rm -f "$WORLD_JSON.tmp"
	cat "$load_err" >&2
	if [[ "$USER_DATABASE" == 1 ]] && grep -q "already exists in the database" "$load_err"; then
		note "NOTE: the world is already in the database at DATABASE_URL; keeping the data there"
		note "      and continuing (ids are looked up by handle below)."
		WORLD_LOADED=0
	else
		die "loading $WORLD failed"
	fi
fi

# ---------------------------------------------------------------------------
# Serve, wait for /readyz, print the demo curl.
if port_busy "$PORT"; then
	die "port $PORT is in use: set PORT to a free port"
fi
if [[ "$METRICS_PORT" != 0 ]] && port_busy "$METRICS_PORT"; then
	die "port $METRICS_PORT is in use: set METRICS_PORT to a free port (0 turns metrics off)"
fi
export PORT HOST METRICS_PORT
say "serving the API on $HOST:$PORT"
"$PYTHON" -m app serve &
SERVE_PID=$!

case "$HOST" in
0.0.0.0 | "::" | "") URL_HOST="127.0.0.1" ;;
*:*) URL_HOST="[$HOST]" ;;
*) URL_HOST="$HOST" ;;
esac
BASE_URL="http://$URL_HOST:$PORT"
ready=0
for _ in $(seq 1 600); do
	kill -0 "$SERVE_PID" 2>/dev/null || break
	if http_ok "$BASE_URL/readyz"; then
		ready=1
		break
	fi
	sleep 0.1
done
if [[ "$ready" != 1 ]]; then
	kill -0 "$SERVE_PID" 2>/dev/null || die "the API exited during start-up"
	die "the API did not become ready at $BASE_URL/readyz within 60 seconds"
fi

# Prints the curl for the first run of the world (key and agent from the YAML, the
# agent's token from the YAML, the run id from world.json or, when the world was
# already in a user-supplied database, from the runs table).
demo_curl="$(
	WORLD_FILE="$WORLD" WORLD_JSON="$WORLD_JSON" WORLD_LOADED="$WORLD_LOADED" BASE_URL="$BASE_URL" \
		"$PYTHON" - <<'PY' 2>&1 || true
import json
import os
import sys

import yaml

world = yaml.safe_load(open(os.environ["WORLD_FILE"], encoding="utf-8")) or {}
runs = world.get("runs") or []
base = os.environ["BASE_URL"]
if not runs:
    print(f"(the world has no runs; try: curl -s {base}/readyz)")
    sys.exit(0)
run = runs[0]
agent = run.get("agent")
token = next((a.get("token") for a in world.get("agents") or [] if a.get("handle") == agent), None)
run_id = run.get("id")
if run_id is None and os.environ["WORLD_LOADED"] == "1":
    run_id = json.load(open(os.environ["WORLD_JSON"], encoding="utf-8")).get(run.get("key"))
if run_id is None:
    # The world was already loaded: the first run of this agent in the database.
    from sqlalchemy import text

    from repositories.engine import make_engine

    engine = make_engine(os.environ["DATABASE_URL"])
    with engine.connect() as conn:
        run_id = conn.execute(
            text(
                "SELECT r.id FROM runs r JOIN principals p ON p.id = r.agent_id "
                "WHERE p.handle = :handle ORDER BY r.queued_at, r.id LIMIT 1"
            ),
            {"handle": agent},
        ).scalar()
    engine.dispose()
if run_id is None or not token:
    print(f"(could not find the id of run {run.get('key')!r} or a token for agent {agent!r})")
    sys.exit(0)
print(
    f"curl -s -H 'Authorization: Bearer {token}' "
    f"{base}/api/v1/runs/{run_id}/context"
)
PY
)"

cat <<EOF

==> ready: $BASE_URL  (Ctrl-C stops the API and the services started for it)
    Context of the first demo run, as its agent:

    $demo_curl

EOF
if [[ -n "$POLICY_BUNDLE" ]]; then
	revision="$("$PYTHON" -c 'import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1], timeout=5)).get("policy_revision", "?"))' "$BASE_URL/readyz" 2>/dev/null || echo "?")"
	note "policies: the signed bundle $POLICY_BUNDLE, revision $revision"
	note "          (make bundle rewrites it; OPA activates the new revision within 20 seconds)"
elif [[ -n "$OPA_PID" ]]; then
	note "policies: the working tree's policies/ (an edit takes effect at once)"
fi
if [[ "$METRICS_PORT" != 0 ]]; then
	note "metrics: curl -s http://127.0.0.1:$METRICS_PORT/metrics   (docs/operations.md)"
fi
if [[ -n "$OTLP_ENDPOINT" ]]; then
	note "traces: the app and OPA export to $OTLP_ENDPOINT (OPA: $OPA_TRACING_ADDRESS)"
fi
if [[ -n "$REDIS_PID" ]]; then
	note "rate limits: shared by the workers in Redis on 127.0.0.1:$REDIS_PORT (redis-cli -p $REDIS_PORT)"
fi

wait "$SERVE_PID"
