#!/usr/bin/env bash
# infra/up and infra/test answer -h and --help with their usage, naming their options, and exit
# 0 without installing, building or starting anything; an unknown argument still fails.
set -euo pipefail
ROOT=${1:?usage: help_test.sh <project root>}

WORK=$(mktemp -d /tmp/payrail-help-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# expect_usage <script> <flag> <option...>: exit 0, the usage line and every option printed.
expect_usage() {
  local script=$1 flag=$2 status=0
  shift 2
  # A bounded wait: a --help taken for a real run would otherwise build and run everything.
  timeout 60 "$ROOT/infra/$script" "$flag" >"$WORK/out" 2>"$WORK/err" || status=$?
  [ "$status" = 0 ] || fail "infra/$script $flag exited $status: $(cat "$WORK/out" "$WORK/err")"
  grep -q "^  infra/$script " "$WORK/out" || fail "infra/$script $flag printed no usage line"
  for option in "$@"; do
    grep -qF -- "$option" "$WORK/out" || fail "infra/$script $flag does not mention $option"
  done
  if grep -qE "building|installing|initialising|error" "$WORK/out" "$WORK/err"; then
    fail "infra/$script $flag did more than print its usage: $(cat "$WORK/err")"
  fi
  echo "ok: infra/$script $flag prints its usage and exits 0"
}

for flag in -h --help; do
  expect_usage up "$flag" --workers --no-build --help PAYRAIL_DATA_DIR PAYRAIL_HTTPS_PORT
  expect_usage test "$flag" "-R" PAYRAIL_FUZZ_SECONDS --help
done

status=0
timeout 60 "$ROOT/infra/up" --no-such-option >"$WORK/out" 2>"$WORK/err" || status=$?
[ "$status" != 0 ] || fail "infra/up accepted an unknown argument"
grep -q "unknown argument --no-such-option" "$WORK/err" || fail "unclear: $(cat "$WORK/err")"
echo "ok: an unknown argument still fails"
