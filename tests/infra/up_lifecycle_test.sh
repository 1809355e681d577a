#!/usr/bin/env bash
# infra/up start and stop, with the binaries already built (--no-build) on private ports in a
# temporary data directory:
#   1. a run killed outright (kill -9, as a supervisor that gave up would) leaves PostgreSQL
#      running but none of its survivors holds the data directory's lock; the next run detects
#      them, stops them and starts cleanly;
#   2. that run serves N processes of a role and of the API, each with its metrics; a second
#      infra/up on its data directory (with --no-build, and building) stops at once with a
#      message naming the running one, and the first still answers over HTTPS with the same
#      PostgreSQL and TLS proxy; it stops
#      everything, PostgreSQL included, within 10 s of SIGTERM, under a stream of payouts; the
#      next run finishes every payout the stop cut short, exactly once;
#   3. a port already taken stops infra/up at once with a message naming the port and the
#      setting that changes it, before anything is started.
# The processes reach PostgreSQL over its Unix socket (tests/infra/deep_checkout_test.sh: over
# TCP where the checkout is too deep for one).
set -euo pipefail
ROOT=${1:?usage: up_lifecycle_test.sh <project root> <build dir>}
export PAYRAIL_BUILD_DIR=${2:?usage: up_lifecycle_test.sh <project root> <build dir>}
source "$ROOT/infra/scripts/common.sh"

WORK=$(mktemp -d /tmp/payrail-up-test.XXXXXX)
chmod 755 "$WORK"
UP_PID=""
# Under set -e a failing command here would replace the test's exit status: none may fail.
cleanup() {
  [ -z "$UP_PID" ] || kill -KILL "$UP_PID" 2>/dev/null || true
  if [ -n "${BLOCKER:-}" ]; then
    kill -KILL "$BLOCKER" 2>/dev/null || true
    wait "$BLOCKER" 2>/dev/null || true
  fi
  stop_stale_postgres "$(postgres_cluster_dir "$WORK/data/postgres" "$(postgres_user)")" 2>/dev/null
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -n 40 "$WORK"/up*.err >&2 2>/dev/null || true
  exit 1
}

source "$ROOT/tests/infra/private_ports.sh"
export PAYRAIL_DATA_DIR=$WORK/data PAYRAIL_API_PROCESSES=2
CLUSTER=$(postgres_cluster_dir "$PAYRAIL_DATA_DIR/postgres" "$(postgres_user)")

# The processes that have the data directory's lock file open, as "pid:command ...".
lock_holders() {
  local fd pid
  for fd in /proc/[0-9]*/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$PAYRAIL_DATA_DIR/up.lock" ] || continue
    pid=${fd#/proc/}
    pid=${pid%%/*}
    echo "$pid:$(cat "/proc/$pid/comm" 2>/dev/null)"
  done | sort -u | tr '\n' ' ' | sed 's/ $//'
}

psql_scalar() {
  psql -XAtq "postgresql://payrail@127.0.0.1:$PAYRAIL_PG_PORT/payrail" -c "$1"
}

start_up() {  # start_up <name>: infra/up in the background, waits until it is ready
  setsid "$ROOT/infra/up" --no-build --workers screening=2,webhooks=2 >"$WORK/$1.out" \
    2>"$WORK/$1.err" &
  UP_PID=$!
  for _ in $(seq 1 1200); do
    grep -q "Press Ctrl-C" "$WORK/$1.err" && return 0
    kill -0 "$UP_PID" 2>/dev/null || fail "$1: infra/up exited during start-up"
    sleep 0.1
  done
  fail "$1: infra/up was not ready within 120 s"
}

# 1. A run killed outright leaves PostgreSQL behind.
start_up up1
kill -KILL "$UP_PID"
wait "$UP_PID" 2>/dev/null || true
UP_PID=""
[ -n "$(postgres_processes_of "$CLUSTER")" ] || fail "PostgreSQL did not outlive the killed run"
for _ in $(seq 1 100); do port_in_use "$PAYRAIL_HTTP_PORT" || break; sleep 0.1; done
echo "ok: a killed run left PostgreSQL running"
# What outlived the supervisor must not hold its lock, or the next run could never clean up.
holders=$(lock_holders)
[ -z "$holders" ] || fail "processes that outlived the killed run hold up.lock: $holders"
echo "ok: no survivor of the killed run holds the data directory's lock"

# 2. The next run stops it, starts, serves every process's metrics, stops within 10 s.
start_up up2
grep -q "PostgreSQL left running by an earlier run" "$WORK/up2.err" ||
  fail "the stale PostgreSQL was not reported"
grep -q "TLS proxy left running by an earlier run" "$WORK/up2.err" ||
  fail "the stale TLS proxy was not reported"
urls=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$WORK/up2.err")
[ "$(echo "$urls" | wc -l)" -eq 10 ] || fail "expected 10 metrics addresses, got: $urls"
for url in $urls; do
  metrics=$(curl -fsS "$url") || fail "no answer at $url"
  [[ $metrics == *$'\n'payrail_build_info* ]] || fail "no payrail_build_info at $url"
done
for process in api api-2 screening screening-2 webhooks-2; do
  grep -q "^  $process " "$WORK/up2.err" || fail "$process was not started"
done
curl -fsS "http://127.0.0.1:$PAYRAIL_HTTP_PORT/v1/health" >/dev/null || fail "API not healthy"
echo "ok: stale PostgreSQL stopped; 2 API, 2 screening, 2 webhooks processes with their metrics"
# A session over a Unix socket has no client address.
sessions=$(psql -h 127.0.0.1 -p "$PAYRAIL_PG_PORT" -U payrail -d payrail -tAc \
  "SELECT count(*) FILTER (WHERE client_addr IS NULL) || ' of ' || count(*) FROM pg_stat_activity
   WHERE application_name LIKE 'payrail-%'")
[[ $sessions =~ ^([0-9]+)\ of\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
  [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "not every process's session is over the socket: $sessions"
echo "ok: $sessions sessions of the processes over PostgreSQL's Unix socket"

# A second infra/up on the running stack's data directory: refused at once, nothing touched.
API="https://localhost:$PAYRAIL_HTTPS_PORT"
CA=(--cacert "$PAYRAIL_DATA_DIR/tls/ca.pem")
POSTMASTER=$(sed -n 1p "$CLUSTER/postmaster.pid")
PROXY=$(cat "$PAYRAIL_DATA_DIR/tls/haproxy.pid")
holders=$(lock_holders)
[ "${holders%%:*}" = "$UP_PID" ] && [[ $holders != *" "* ]] ||
  fail "up.lock is not held by the supervisor (pid $UP_PID) alone: $holders"
PG_STARTED=$(psql_scalar "SELECT pg_postmaster_start_time()")
files_state() {  # the files a second run would rewrite, with their inodes, sizes and times
  stat -c '%n %i %s %Y' "$PAYRAIL_DATA_DIR/up.lock" "$PAYRAIL_DATA_DIR/tls/haproxy.cfg" \
    "$PAYRAIL_DATA_DIR/tls/haproxy.pid" "$PAYRAIL_DATA_DIR/tls/proxy.pem"
}
before=$(files_state)
second_up() {  # second_up <name> <arguments...>: runs it to its end; fails if it succeeds
  local name=$1
  shift
  if timeout 120 "$ROOT/infra/up" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
    fail "$name: a second infra/up on a held data directory started"
  fi
  grep -qF "Payrail is already running from $PAYRAIL_DATA_DIR (pid $UP_PID); stop it with Ctrl-C there, or set PAYRAIL_DATA_DIR for a second stack" \
    "$WORK/$name.err" || fail "$name: not the expected message: $(cat "$WORK/$name.err")"
  [ "$(grep -c . "$WORK/$name.err")" = 1 ] || fail "$name: did more than refuse: $(cat "$WORK/$name.err")"
}
second_up second-no-build --no-build --workers screening=2,webhooks=2
# Building would rewrite the binaries the first run executes: the refusal comes first. The build
# directory given is a file, so a build attempt could only fail, and differently.
: >"$WORK/not-a-build-dir"
PAYRAIL_BUILD_DIR=$WORK/not-a-build-dir second_up second-build
kill -0 "$UP_PID" 2>/dev/null || fail "the first infra/up is gone"
grep -q "shutting down" "$WORK/up2.err" && fail "the first infra/up is shutting down"
[ "$(sed -n 1p "$CLUSTER/postmaster.pid")" = "$POSTMASTER" ] && kill -0 "$POSTMASTER" 2>/dev/null ||
  fail "the first run's PostgreSQL (pid $POSTMASTER) was replaced or stopped"
[ "$(cat "$PAYRAIL_DATA_DIR/tls/haproxy.pid")" = "$PROXY" ] && kill -0 "$PROXY" 2>/dev/null ||
  fail "the first run's TLS proxy (pid $PROXY) was replaced or stopped"
[ "$(files_state)" = "$before" ] || fail "the second run changed files: $before -> $(files_state)"
health=$(curl -fsS "${CA[@]}" "$API/v1/health") || fail "the first stack no longer answers over HTTPS"
[ "$(psql_scalar "SELECT pg_postmaster_start_time()")" = "$PG_STARTED" ] ||
  fail "PostgreSQL was restarted (started at $PG_STARTED before)"
echo "ok: a second infra/up was refused with its message; the first still answers ($health), same PostgreSQL (pid $POSTMASTER)"

# A steady stream of payouts (one every 50 ms, each with its own Idempotency-Key) is running
# when SIGTERM arrives; what the stop cut short must be finished by the next run. Clients go
# through the TLS front, which forwards to the two API processes sharing the plain port.
SESSION=$(PAYRAIL_IDP_HS256_SECRET=payrail-development-session-secret-do-not-use \
  "$PAYRAIL_BUILD_DIR/infra/payrail" dev-session --email up-test@example.com)
API_KEY=$(curl -fsS "${CA[@]}" -X POST "$API/v1/organizations" -H "Authorization: Bearer $SESSION" \
  -H 'Content-Type: application/json' \
  -d '{"legal_name":"Up Test Ltd","display_name":"Up Test","country":"CA"}' |
  jq -r .api_key.key)
[[ $API_KEY == ck_test_* ]] || fail "no test key"
create_payout() {  # create_payout <index>: prints the HTTP status (000: no answer)
  local address
  address=0x$(printf 'stop-%s' "$1" | sha1sum | cut -c1-40)
  curl -sS "${CA[@]}" -o /dev/null -w '%{http_code}' --max-time 15 -X POST "$API/v1/payouts" \
    -H "X-API-Key: $API_KEY" -H "Idempotency-Key: stop-$1" -H 'Content-Type: application/json' \
    -d '{"amount":"1","currency":"USDC","destination":{"network":"polygon","address":"'"$address"'"}}' \
    2>/dev/null || true
}
LOAD_SIZE=60
: >"$WORK/load"
(for i in $(seq 1 $LOAD_SIZE); do
  echo "$i $(create_payout "$i")" >>"$WORK/load" &
  sleep 0.05
done; wait) &
LOAD=$!
for _ in $(seq 1 100); do [ "$(wc -l <"$WORK/load")" -ge 10 ] && break; sleep 0.1; done

started=$(date +%s%3N)
kill -TERM "$UP_PID"
while kill -0 "$UP_PID" 2>/dev/null; do
  [ $(($(date +%s%3N) - started)) -lt 15000 ] || fail "infra/up still running 15 s after SIGTERM"
  sleep 0.05
done
elapsed=$(($(date +%s%3N) - started))
wait "$UP_PID" || fail "infra/up exited with an error after SIGTERM"
UP_PID=""
echo "infra/up stopped $elapsed ms after SIGTERM"
[ "$elapsed" -le 10000 ] || fail "stopping took $elapsed ms (bound: 10 s)"
[ -z "$(postgres_processes_of "$CLUSTER")" ] || fail "PostgreSQL still running after the stop"
for port in $PAYRAIL_HTTP_PORT $PAYRAIL_HTTPS_PORT $PAYRAIL_KAFKA_PORT $PAYRAIL_PG_PORT; do
  port_in_use "$port" && fail "port $port still in use after the stop"
done
echo "ok: everything stopped within the bound, PostgreSQL included"
wait "$LOAD" || true
answered=$(awk '$2 == 201 || $2 == 202' "$WORK/load" | wc -l)
echo "the load: $answered of $LOAD_SIZE creates answered before the stop"

# 2b. The next run finishes what the stop cut short: the creates that got no answer are retried
# with their Idempotency-Key, and every payout ends exactly once.
start_up up2b
for i in $(seq 1 $LOAD_SIZE); do
  status=$(create_payout "$i")
  [ "$status" = 201 ] || [ "$status" = 202 ] || fail "create $i after the restart answered $status"
done
for _ in $(seq 1 600); do
  [ "$(psql_scalar "SELECT count(*) FROM payouts WHERE status NOT IN ('completed', 'failed',
    'blocked')")" = 0 ] && break
  sleep 0.1
done
[ "$(psql_scalar "SELECT count(*) FROM payouts")" = $LOAD_SIZE ] || fail "not $LOAD_SIZE payouts"
[ "$(psql_scalar "SELECT count(*) FROM payouts WHERE status <> 'completed'")" = 0 ] ||
  fail "payouts did not complete: $(psql_scalar "SELECT status, count(*) FROM payouts GROUP BY 1")"
[ "$(psql_scalar "SELECT count(*) FROM (SELECT 1 FROM events GROUP BY resource_id, type
  HAVING count(*) > 1) twice")" = 0 ] || fail "an event was emitted twice"
[ "$(psql_scalar "SELECT count(*) FROM (SELECT resource_id FROM journal_entries
  WHERE resource_id LIKE 'po\\_%' GROUP BY resource_id
  HAVING string_agg(kind, ',' ORDER BY id) <> 'hold,settle') wrong")" = 0 ] ||
  fail "a payout's journal is not exactly one hold and one settle"
[ "$(psql_scalar "SELECT trim_scale(available) || '/' || trim_scale(held) FROM balances
  WHERE mode = 'test' AND asset = 'USDC'")" = "$((1000000 - LOAD_SIZE))/0" ] ||
  fail "the balance does not add up"
kill -TERM "$UP_PID"
wait "$UP_PID" || fail "infra/up exited with an error after SIGTERM"
UP_PID=""
echo "ok: the next run finished every payout of the interrupted load exactly once"

# 3. A port taken by another program: a clear message, nothing started.
PAYRAIL_KAFKA_PORT=$PAYRAIL_HTTP_PORT PAYRAIL_METRICS_PORT=0 \
  "$PAYRAIL_BUILD_DIR/infra/payrail-broker" >"$WORK/blocker.log" 2>&1 &
BLOCKER=$!
for _ in $(seq 1 100); do port_in_use "$PAYRAIL_HTTP_PORT" && break; sleep 0.1; done
if "$ROOT/infra/up" --no-build >"$WORK/up3.out" 2>"$WORK/up3.err"; then
  fail "infra/up started although port $PAYRAIL_HTTP_PORT was taken"
fi
grep -q "port $PAYRAIL_HTTP_PORT is already in use by another program; set PAYRAIL_HTTP_PORT" \
  "$WORK/up3.err" || fail "unclear message: $(cat "$WORK/up3.err")"
[ -z "$(postgres_processes_of "$CLUSTER")" ] || fail "PostgreSQL was started anyway"
echo "ok: a taken port is named with its setting"
