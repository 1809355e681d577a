# shellcheck shell=bash
# Sourced by `tests/bench/payouts/run --live` (its variables: URL, COUNT, CONCURRENCY, ORGS,
# RATE, WARMUP, BUILD, DATA, NETWORKS_FILE, PROCESS_LIST). Live payouts against the local chain of
# `infra/up --chain`, then as many test-mode payouts of the same organizations, side by side.
P=$BUILD/infra/payrail
BENCH=$BUILD/tests/payrail-bench-payouts
export PAYRAIL_WEBHOOK_ENCRYPTION_KEY=${PAYRAIL_WEBHOOK_ENCRYPTION_KEY:-$(cat "$DATA/webhook-encryption.key")}
export PAYRAIL_EVM_NETWORKS_FILE=$NETWORKS_FILE
export PAYRAIL_OPERATOR=${PAYRAIL_OPERATOR:-bench}
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
NETWORK_LIST=$(python3 -c 'import json, sys; print(",".join(json.load(open(sys.argv[1]))))' \
  "$NETWORKS_FILE")

# Going live as docs/going-live.md walks it, per organization: KYB submitted with the test key and
# verified with the CLI, a live key, the ACH rail enabled, and 100 USD collected live (the payment
# recorded as the simulated provider would) to fund the live USDC balance.
echo "== preparing $ORGS live organizations (KYB verified, live balance funded by a collection) =="
LIVE_KEYS=()
SUMMARY=""
TEST_KEYS=()
for i in $(seq 1 "$ORGS"); do
  session=$("$P" dev-session --email "bench-live-$i-$RANDOM@example.com")
  organization=$(curl -fsS -X POST "$URL/v1/organizations" -H "Authorization: Bearer $session" \
    -H 'Content-Type: application/json' \
    -d '{"legal_name":"Bench Ltd","display_name":"Bench","country":"CA"}')
  org=$(json '["id"]' <<<"$organization")
  TEST_KEYS+=("$(json '["api_key"]["key"]' <<<"$organization")")
  submission=$(curl -fsS -X POST "$URL/v1/kyb" -H "X-API-Key: ${TEST_KEYS[-1]}" \
    -H 'Content-Type: application/json' \
    -d '{"legal_name":"Bench Ltd","registration_no":"BC1234567","incorporation_country":"CA",
         "beneficial_owners":[{"name":"Ada Lovelace","dob":"1985-12-10","ownership_pct":"60","country":"GB"}],
         "documents":[{"type":"certificate_of_incorporation","reference":"doc-001"},
                      {"type":"proof_of_address","reference":"doc-002"}]}' | json '["id"]')
  "$P" kyb-review --submission "$submission" --to in_review >/dev/null
  "$P" kyb-review --submission "$submission" --to verified --notes "Benchmark" >/dev/null
  LIVE_KEYS+=("$(curl -fsS -X POST "$URL/v1/api-keys" -H "Authorization: Bearer $session" \
    -H "Payrail-Organization: $org" -H 'Content-Type: application/json' -d '{"mode": "live"}' |
    json '["key"]')")
  "$P" rail-enable --org "$org" --method ach >/dev/null
  reference=$(curl -fsS -X POST "$URL/v1/collections" -H "X-API-Key: ${LIVE_KEYS[-1]}" \
    -H "Idempotency-Key: bench-fund-$org" -H 'Content-Type: application/json' \
    -d '{"amount":"100.00","currency":"USD","method":"ach"}' |
    json '["payment_instructions"]["reference"]')
  "$P" collection-provider-event --provider simulated --event-id "bench-fund-$org" \
    --type payment_received --mode live --method ach --reference "$reference" --amount 100.00 \
    --currency USD >/dev/null
done
for key in "${LIVE_KEYS[@]}"; do
  available=0.000000
  for _ in $(seq 1 600); do
    available=$(curl -fsS "$URL/v1/balances" -H "X-API-Key: $key" | json '["data"][0]["available"]')
    [ "$available" = 0.000000 ] || break
    sleep 0.1
  done
  [ "$available" != 0.000000 ] || { echo "a live balance was not funded within 60 s" >&2; exit 1; }
done
echo "live balances funded; networks: $NETWORK_LIST"

run_mode() {  # run_mode <live|test> <comma-separated keys>
  echo "== $1 mode: $COUNT USDC payouts of 0.01 on $NETWORK_LIST, $MODE, $ORGS organizations =="
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
  "$BENCH" --url "$URL" --keys "$2" --count "$COUNT" --concurrency "$CONCURRENCY" --rate "$RATE" \
    --warmup "$WARMUP" --database-url "$PAYRAIL_DATABASE_URL" --networks "$NETWORK_LIST" \
    --end-to-end 1 --processes "$PROCESS_LIST" | tee "/tmp/payrail-bench-$1.txt"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
MODE=$([ "$RATE" = 0 ] && echo "closed loop, concurrency $CONCURRENCY" ||
  echo "open loop, $RATE/s, up to $CONCURRENCY in flight")
run_mode live "$(IFS=,; echo "${LIVE_KEYS[*]}")"
run_mode test "$(IFS=,; echo "${TEST_KEYS[*]}")"
echo "== the CPU of signing: the project's signer, one EIP-1559 USDC transfer per payout =="
"$BENCH" --sign-benchmark 2000 | tee /tmp/payrail-bench-sign.txt

echo "== live next to test mode (same run, same organizations) =="
printf '  %-40s %12s %12s\n' "" live test
for name in PAYOUTS_PER_SECOND CREATE_P50_MS CREATE_P99_MS COMPLETED_P50_MS COMPLETED_P99_MS \
  CPU_MS_PER_PAYOUT PAYOUTS_COMPLETED PAYOUTS_FAILED; do
  live=$(sed -n "s/^$name=//p" /tmp/payrail-bench-live.txt)
  test=$(sed -n "s/^$name=//p" /tmp/payrail-bench-test.txt)
  printf '  %-40s %12s %12s\n' "$name" "$live" "$test"
  SUMMARY+="LIVE_$name=$live"$'\n'"TEST_$name=$test"$'\n'
done
sign_us=$(sed -n 's/^SIGN_US_PER_PAYOUT=//p' /tmp/payrail-bench-sign.txt)
printf '  %-40s %12s %12s\n' "signing CPU per payout (us)" "$sign_us" "-"
printf '%s' "$SUMMARY"
echo "SIGN_US_PER_PAYOUT=$sign_us"
