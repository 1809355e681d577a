#!/usr/bin/env bash
# docs/going-live.md "A live payout on your machine", as a new user runs it: infra/up --chain (the
# binaries already built, --no-build) starts anvil for the six EVM networks with the tokens and
# funded hot wallets; an organization is created, its KYB verified with the CLI, its live balance
# funded by a live ACH collection whose payment is recorded with the CLI; a live USDC payout on
# polygon completes with a transaction hash; and `payrail evm-balance` reads exactly the amount
# back from the chain.
set -euo pipefail
ROOT=${1:?usage: chain_walkthrough_test.sh <project root> <build dir>}
export PAYRAIL_BUILD_DIR=${2:?usage: chain_walkthrough_test.sh <project root> <build dir>}
source "$ROOT/infra/scripts/common.sh"

WORK=$(mktemp -d /tmp/payrail-chain-test.XXXXXX)
DATA=$WORK/.payrail
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
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }

source "$ROOT/tests/infra/private_ports.sh"
export PAYRAIL_CHAIN_PORT=$(free_port)
export PAYRAIL_DATA_DIR=$DATA
mkdir -p "$DATA"
setsid "$ROOT/infra/up" --chain --no-build >"$WORK/up.out" 2>"$WORK/up.err" &
UP_PID=$!
ready=""
for _ in $(seq 1 1800); do
  grep -q "Press Ctrl-C" "$WORK/up.err" && { ready=1; break; }
  kill -0 "$UP_PID" 2>/dev/null || fail "infra/up --chain exited during start-up"
  sleep 0.1
done
[ -n "$ready" ] || fail "infra/up --chain was not ready within 180 s"

export PAYRAIL_DATABASE_URL="postgresql://payrail@127.0.0.1:$PAYRAIL_PG_PORT/payrail"
export PAYRAIL_WEBHOOK_ENCRYPTION_KEY=$(cat "$DATA/webhook-encryption.key")
export PAYRAIL_IDP_HS256_SECRET=payrail-development-session-secret-do-not-use
export PAYRAIL_EVM_NETWORKS_FILE=$DATA/evm-networks.json
export PAYRAIL_OPERATOR=walkthrough
P=$PAYRAIL_BUILD_DIR/infra/payrail
API=https://localhost:$PAYRAIL_HTTPS_PORT
api() { curl -sS --cacert "$DATA/tls/ca.pem" "$@"; }

[ "$($P evm-wallets | wc -l)" = 6 ] || fail "six hot wallets expected"
session=$($P dev-session --email you@example.com)
organization=$(api -X POST "$API/v1/organizations" -H "Authorization: Bearer $session" \
  -H 'Content-Type: application/json' \
  -d '{"legal_name": "Example Ltd", "display_name": "Example", "country": "CA"}')
org=$(echo "$organization" | json '["id"]')
test_key=$(echo "$organization" | json '["api_key"]["key"]')
submission=$(api -X POST "$API/v1/kyb" -H "X-API-Key: $test_key" -H 'Content-Type: application/json' \
  -d '{"legal_name":"Example Ltd","registration_no":"BC1234567","incorporation_country":"CA",
       "beneficial_owners":[{"name":"Ada Lovelace","dob":"1985-12-10","ownership_pct":"60","country":"GB"}],
       "documents":[{"type":"certificate_of_incorporation","reference":"doc-001"},
                    {"type":"proof_of_address","reference":"doc-002"}]}' | json '["id"]')
$P kyb-review --submission "$submission" --to in_review >/dev/null
$P kyb-review --submission "$submission" --to verified --notes "Registry and documents match" >/dev/null
live_key=$(api -X POST "$API/v1/api-keys" -H "Authorization: Bearer $session" \
  -H "Payrail-Organization: $org" -H 'Content-Type: application/json' -d '{"mode": "live"}' |
  json '["key"]')

$P rail-enable --org "$org" --method ach >/dev/null
reference=$(api -X POST "$API/v1/collections" -H "X-API-Key: $live_key" -H 'Idempotency-Key: c1' \
  -H 'Content-Type: application/json' -d '{"amount":"100.00","currency":"USD","method":"ach"}' |
  json '["payment_instructions"]["reference"]')
$P collection-provider-event --provider simulated --event-id evt-1 --type payment_received \
  --mode live --method ach --reference "$reference" --amount 100.00 --currency USD >/dev/null
funded=""
for _ in $(seq 1 300); do
  available=$(api "$API/v1/balances" -H "X-API-Key: $live_key" |
    json '["data"][0]["available"]')
  [ "$available" = "0.000000" ] || { funded=$available; break; }
  sleep 0.1
done
[ -n "$funded" ] || fail "the live balance was not funded"
echo "ok: live balance funded: $funded USDC"

recipient=0x$(openssl rand -hex 20)
payout=$(api -X POST "$API/v1/payouts" -H "X-API-Key: $live_key" \
  -H 'Idempotency-Key: first-live-payout' -H 'Content-Type: application/json' \
  -d '{"amount": "25", "currency": "USDC", "destination": {"network": "polygon", "address": "'"$recipient"'"}}' |
  json '["id"]')
status=""
for _ in $(seq 1 600); do
  status=$(api "$API/v1/payouts/$payout" -H "X-API-Key: $live_key" | json '["status"]')
  [ "$status" = completed ] || [ "$status" = failed ] && break
  sleep 0.1
done
[ "$status" = completed ] || fail "the payout is $status"
hash=$(api "$API/v1/payouts/$payout" -H "X-API-Key: $live_key" | json '["tx_hash"]')
[[ $hash =~ ^0x[0-9a-f]{64}$ ]] || fail "tx_hash $hash"
read_back=$($P evm-balance --network polygon --asset USDC --address "$recipient")
[ "$read_back" = 25.000000 ] || fail "the recipient holds $read_back"
echo "ok: $payout completed ($hash); the recipient holds $read_back USDC on the local chain"

kill -TERM "$UP_PID"
wait "$UP_PID" || fail "infra/up exited with an error after SIGTERM"
UP_PID=""
echo "ok: stopped"
