#!/usr/bin/env bash
# Generates TypeScript clients from the OpenAPI description as served (assembled from
# schemas/openapi/ by `payrail openapi`) with two widely used generators, and fails on any
# warning (ctest: lint_openapi_clients, label lint):
#   1. openapi-typescript (types for openapi-fetch);
#   2. @hey-api/openapi-ts (types, an SDK and its fetch client);
# then type-checks both outputs with the TypeScript compiler. All pinned in
# tests/tools/package-lock.json and installed by infra/test with `npm ci`. The generators exit 0
# on warnings (a discriminator they cannot apply, an unsupported construct ...), so their output
# is read: anything on stderr, or a line that looks like a warning on stdout, fails the test.
# A missing tool is a failure, never a skip.
#
#   tests/lint/openapi_clients.sh <project source dir> <the payrail CLI binary>
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <project source dir> <payrail binary>" >&2
  exit 2
fi
ROOT=$(cd "$1" && pwd)
PAYRAIL=$2
BIN=$ROOT/tests/tools/node_modules/.bin

fail() {
  echo "openapi_clients: $*" >&2
  exit 1
}

for tool in openapi-typescript openapi-ts tsc; do
  [ -x "$BIN/$tool" ] || fail "$BIN/$tool is missing; install it with: (cd tests/tools && npm ci)"
done
command -v node >/dev/null || fail "node is not installed; the generators need it"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DOCUMENT=$WORK/openapi.json
"$PAYRAIL" openapi >"$DOCUMENT" || fail "payrail openapi failed"
cd "$WORK"  # no stray configuration file (redocly.yaml, openapi-ts.config.*) is picked up
export NO_COLOR=1 FORCE_COLOR=0

# warnings_of <stdout file> <stderr file>: prints what counts as a warning.
WARNING_PATTERN='warn|⚠|🚨|❗|error|✘|invalid|unsupported|deprecated'
warnings_of() {
  cat "$2"
  grep -aiE "$WARNING_PATTERN" "$1" || true
}

# run_tool <name> <command...>: runs it, fails on a non-zero exit or any warning.
run_tool() {
  local name=$1 status warnings
  shift
  set +e
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  status=$?
  set -e
  warnings=$(warnings_of "$WORK/$name.out" "$WORK/$name.err")
  if [ "$status" -ne 0 ] || [ -n "$warnings" ]; then
    cat "$WORK/$name.out" "$WORK/$name.err" >&2
    fail "$name: exit status $status; the description must give clients with no warning"
  fi
  echo "openapi_clients: $name: no warning"
}

run_tool openapi-typescript "$BIN/openapi-typescript" "$DOCUMENT" -o "$WORK/schema.d.ts"
run_tool openapi-ts "$BIN/openapi-ts" -i "$DOCUMENT" -o "$WORK/hey-api"
[ -s "$WORK/schema.d.ts" ] || fail "openapi-typescript wrote nothing"
[ -s "$WORK/hey-api/types.gen.ts" ] || fail "@hey-api/openapi-ts wrote no types"

# The generated code compiles: a shape the generators accept but render wrongly shows here.
run_tool tsc "$BIN/tsc" --noEmit --strict --target es2022 --module nodenext \
  --moduleResolution nodenext --skipLibCheck "$WORK/schema.d.ts" "$WORK/hey-api/index.ts"
