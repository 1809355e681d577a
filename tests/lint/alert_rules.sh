#!/usr/bin/env bash
# The alerting rules (infra/deploy/prometheus/payrail-alerts.yml) against promtool, their unit
# tests, the runbook (docs/operations.md "Alerts") and the code's metrics:
#  - `promtool check rules` accepts the file and `promtool test rules` passes its unit tests;
#  - the runbook has one section per rule and one rule per section, with the same expr, `for`
#    and severity (both sides parsed as YAML by yq, whitespace ignored);
#  - every rule's runbook_url is docs/operations.md#<anchor> and the anchor is a heading there;
#  - every metric a rule reads is one infra/plumbing/metrics registers.
set -euo pipefail
ROOT=${1:?usage: alert_rules.sh <project root>}
cd "$ROOT"
RULES=infra/deploy/prometheus/payrail-alerts.yml
RUNBOOK=docs/operations.md
for tool in promtool yq; do
  command -v "$tool" >/dev/null || { echo "alert rules: $tool is missing (infra/test installs it)" >&2; exit 1; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
status=0
fail() { echo "alert rules: $*" >&2; status=1; }

promtool check rules "$RULES" >"$WORK/check.log" 2>&1 || { cat "$WORK/check.log" >&2; fail "promtool check rules"; }
promtool test rules tests/lint/payrail-alerts.test.yml >"$WORK/test.log" 2>&1 ||
  { cat "$WORK/test.log" >&2; fail "promtool test rules"; }

# One line per rule: name, expr, for, severity, runbook_url (tab-separated, whitespace squeezed).
squeeze='gsub("\\s+"; " ") | sub("^ "; "") | sub(" $"; "")'
yq -r ".groups[].rules[] | [.alert, (.expr | $squeeze), (.for // \"-\"), .labels.severity,
  .annotations.runbook_url] | @tsv" "$RULES" | sort >"$WORK/rules.tsv"

# The runbook's alert sections: each "### Name" under "## Alerts" and its ```yaml block.
mkdir "$WORK/sections"
awk -v dir="$WORK/sections" '
  /^## / { in_alerts = ($0 == "## Alerts") ; next }
  in_alerts && /^### / { name = substr($0, 5); next }
  in_alerts && name != "" && /^```yaml$/ { block = dir "/" name; printf "" > block; next }
  block != "" && /^```$/ { close(block); block = ""; name = ""; next }
  block != "" { print > block }
' "$RUNBOOK"
for section in "$WORK"/sections/*; do
  [ -e "$section" ] || { fail "no alert sections under '## Alerts' in $RUNBOOK"; break; }
  name=$(basename "$section")
  printf '%s\t%s\n' "$name" "$(yq -r "[(.expr | $squeeze), (.for // \"-\"), .severity] | @tsv" "$section")"
done | sort >"$WORK/runbook.tsv"

# The same alerts with the same expr, for and severity on both sides.
cut -f1-4 "$WORK/rules.tsv" >"$WORK/rules-compared.tsv"
if ! diff "$WORK/runbook.tsv" "$WORK/rules-compared.tsv" >"$WORK/diff.log"; then
  fail "$RUNBOOK (<) and $RULES (>) disagree (name, expr, for, severity):"
  cat "$WORK/diff.log" >&2
fi

# GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
grep -E '^#+ ' "$RUNBOOK" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' \
  >"$WORK/anchors"
while IFS=$'\t' read -r name _ _ _ runbook_url; do
  anchor=${runbook_url#"$RUNBOOK#"}
  if [ "$anchor" = "$runbook_url" ] || [ -z "$anchor" ]; then
    fail "$name: runbook_url '$runbook_url' is not $RUNBOOK#<section>"
  elif ! grep -qxF "$anchor" "$WORK/anchors"; then
    fail "$name: runbook_url '$runbook_url' names no heading of $RUNBOOK"
  fi
done <"$WORK/rules.tsv"

# Metric names: histograms are read through their _bucket, _sum and _count series.
cut -f2 "$WORK/rules.tsv" | grep -oE '\b(payrail|process)_[a-z_]+' | sort -u |
  while read -r metric; do
    base=$(sed -E 's/_(bucket|sum|count)$//' <<<"$metric")
    grep -rqF "\"$metric\"" infra/plumbing/metrics || grep -rqF "\"$base\"" infra/plumbing/metrics ||
      echo "$metric"
  done >"$WORK/unknown"
[ ! -s "$WORK/unknown" ] || fail "metrics no code registers (infra/plumbing/metrics): $(tr '\n' ' ' <"$WORK/unknown")"

[ "$status" -eq 0 ] && echo "alert rules: $(wc -l <"$WORK/rules.tsv") rules, runbook and metrics agree"
exit $status
