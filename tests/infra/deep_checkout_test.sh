#!/usr/bin/env bash
# infra/up in a checkout deep in the file system (the binaries already built, --no-build): the
# local cluster's Unix socket path ("<data>/postgres/.s.PGSQL.<port>") would pass the 107 bytes a
# socket's path may have, and PostgreSQL refuses to start when it cannot create the socket it is
# given. infra/up starts it without one, the processes connect over TCP, and the API is healthy.
set -euo pipefail
ROOT=${1:?usage: deep_checkout_test.sh <project root> <build dir>}
export PAYRAIL_BUILD_DIR=${2:?usage: deep_checkout_test.sh <project root> <build dir>}
source "$ROOT/infra/scripts/common.sh"

WORK=$(mktemp -d /tmp/payrail-deep-test.XXXXXX)
chmod 755 "$WORK"
DATA=$WORK/a-checkout-$(printf 'deep-%.0s' $(seq 1 14))in-the-file-system/.payrail
UP_PID=""
cleanup() {
  [ -z "$UP_PID" ] || kill -KILL -- "-$UP_PID" 2>/dev/null || true
  stop_stale_postgres "$(postgres_cluster_dir "$DATA/postgres" "$(postgres_user)")" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -n 40 "$WORK/up.err" >&2 2>/dev/null || true
  exit 1
}

source "$ROOT/tests/infra/private_ports.sh"
export PAYRAIL_DATA_DIR=$DATA
CLUSTER=$(postgres_cluster_dir "$DATA/postgres" "$(postgres_user)")
[ -z "$(postgres_socket_dir "$CLUSTER" "$PAYRAIL_PG_PORT")" ] ||
  fail "$CLUSTER is not deep enough to leave out the socket"

mkdir -p "$DATA"
setsid "$ROOT/infra/up" --no-build >"$WORK/up.out" 2>"$WORK/up.err" &
UP_PID=$!
ready=""
for _ in $(seq 1 1200); do
  grep -q "Press Ctrl-C" "$WORK/up.err" && { ready=1; break; }
  kill -0 "$UP_PID" 2>/dev/null || fail "infra/up exited during start-up"
  sleep 0.1
done
[ -n "$ready" ] || fail "infra/up was not ready within 120 s"
curl -fsS "http://127.0.0.1:$PAYRAIL_HTTP_PORT/v1/health" >/dev/null || fail "API not healthy"
sessions=$(psql -h 127.0.0.1 -p "$PAYRAIL_PG_PORT" -U payrail -d payrail -tAc \
  "SELECT count(*) FILTER (WHERE client_addr IS NOT NULL) || ' of ' || count(*)
   FROM pg_stat_activity WHERE application_name LIKE 'payrail-%'")
[[ $sessions =~ ^([0-9]+)\ of\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
  [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "not every process's session is over TCP: $sessions"
echo "ok: PostgreSQL started without a socket in $CLUSTER; $sessions sessions over TCP"

kill -TERM "$UP_PID"
wait "$UP_PID" || fail "infra/up exited with an error after SIGTERM"
UP_PID=""
echo "ok: stopped"
