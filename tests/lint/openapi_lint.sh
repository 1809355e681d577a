#!/usr/bin/env bash
# Lints the API's contract files (ctest: lint_openapi, label lint):
#   1. the OpenAPI description as served (assembled from schemas/openapi/ by `payrail openapi`)
#      with Redocly CLI (tests/tools, pinned in package-lock.json and
#      installed by infra/test with `npm ci`) and the config tests/tools/redocly.yaml, which
#      extends `recommended`. Any error, warning or ignored problem fails the test: Redocly itself
#      exits non-zero only on errors, so the counts are read from its JSON report.
#   2. The Kafka message schemas in schemas/messages/ parse as JSON.
# A missing linter is a failure, never a skip.
#
#   tests/lint/openapi_lint.sh <project source dir> <the payrail CLI binary>
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <project source dir> <payrail binary>" >&2
  exit 2
fi
ROOT=$(cd "$1" && pwd)
PAYRAIL=$2
TOOLS=$ROOT/tests/tools
REDOCLY=$TOOLS/node_modules/.bin/redocly
CONFIG=$TOOLS/redocly.yaml
MESSAGE_SCHEMAS=(envelope payout_reference fiat_payout_reference event_reference provider_event_reference
  collection_reference)

fail() {
  echo "openapi_lint: $*" >&2
  exit 1
}

if [ ! -x "$REDOCLY" ]; then
  fail "the linter is missing ($REDOCLY); install it with: (cd tests/tools && npm ci)"
fi
command -v node >/dev/null || fail "node is not installed; Redocly CLI needs it"
[ -f "$CONFIG" ] || fail "missing $CONFIG"

# No telemetry, update checks or notices: the test runs offline and reads only its own output.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_SUPPRESS_NOTIFICATIONS=true

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DOCUMENT=$WORK/openapi.json
"$PAYRAIL" openapi >"$DOCUMENT" || fail "payrail openapi failed"

# 1. Message schemas: well-formed JSON.
for name in "${MESSAGE_SCHEMAS[@]}"; do
  schema=$ROOT/schemas/messages/$name.schema.json
  [ -f "$schema" ] || fail "missing $schema"
  node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$schema" ||
    fail "$schema is not valid JSON"
done
echo "openapi_lint: ${#MESSAGE_SCHEMAS[@]} message schemas parse as JSON"

# 2. The OpenAPI description. Run from the work directory so no stray redocly.yaml or
# .redocly.lint-ignore.yaml is picked up.
cd "$WORK"
set +e
"$REDOCLY" lint --config "$CONFIG" --lint-config error --format json "$DOCUMENT" \
  >"$WORK/report.json" 2>"$WORK/stderr.txt"
status=$?
set -e
if ! totals=$(node -e '
    const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const t = report.totals;
    if (!t || [t.errors, t.warnings, t.ignored].some((n) => typeof n !== "number")) process.exit(1);
    console.log(`${t.errors} ${t.warnings} ${t.ignored}`);' "$WORK/report.json" 2>/dev/null); then
  cat "$WORK/stderr.txt" >&2
  fail "Redocly produced no report (exit status $status)"
fi
read -r errors warnings ignored <<<"$totals"
echo "openapi_lint: $DOCUMENT: $errors errors, $warnings warnings, $ignored ignored"
if [ "$status" -ne 0 ] || [ "$errors" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$ignored" -ne 0 ]; then
  # The readable report of the same run's problems.
  "$REDOCLY" lint --config "$CONFIG" --lint-config error --format stylish "$DOCUMENT" >&2 || true
  fail "the OpenAPI description must lint with no errors, warnings or ignored problems"
fi
