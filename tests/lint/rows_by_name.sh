#!/usr/bin/env bash
# Rows are read by name (docs/architecture.md "Rows by name"): each table's mapper finds a column by its
# name in the column list beside it (infra/store/sql/text.h), so no production code reads a
# field of a row by a literal position. Fails on a literal column index applied to a row: a
# field read (`row[3].as<...>`, `optional_text(row[8])`, `rows[0][1]`). The one exception is
# the scalar read of a one-column, one-row result (store/sql/sql.h).
# `rows_by_name.sh --self-test` proves it refuses each form, in a scratch tree.
set -euo pipefail
ROOT=${1:?usage: rows_by_name.sh <project root> | --self-test}

find_positional_reads() {  # find_positional_reads <tree>: prints each read by position
  local tree=$1
  (cd "$tree" && grep -rnE \
    -e '\[[0-9]+\]\s*\.\s*(as|is_null|c_str|view|to|get)\b' \
    -e '\b(optional_text|parse_text_array|binarystring|optional_int|optional_bool)\s*\(\s*[A-Za-z_(*)]+\[[0-9]+\]\s*\)' \
    -e '\]\[[0-9]+\]' \
    --include='*.h' --include='*.cc' api workers topics infra 2>/dev/null |
    grep -v '^infra/store/sql/sql.h:' || true)
}

if [ "$ROOT" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/infra/store"
  printf '%s\n' 'int n = row[at("id")].as<int>();' 'auto r = rows[0];' >"$scratch/infra/store/fine.cc"
  [ -z "$(find_positional_reads "$scratch")" ] || { echo "self-test: a clean read was refused" >&2; exit 1; }
  for read in 'x = row[3].as<std::string>();' 'x = optional_text(row[8]);' 'x = rows[0][1].as<int>();' \
    'x = (*found)[2].is_null();' 'x = pqxx::binarystring(row[9]).str();'; do
    echo "$read" >"$scratch/infra/store/bad.cc"
    [ -n "$(find_positional_reads "$scratch")" ] || { echo "self-test: '$read' passed" >&2; exit 1; }
  done
  echo "self-test: every read by position refused"
  exit 0
fi

found=$(find_positional_reads "$ROOT")
if [ -n "$found" ]; then
  echo "$found"
  echo "rows by name: read these fields by their column's name (sql::column), not by position" >&2
  exit 1
fi
