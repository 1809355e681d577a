#!/usr/bin/env bash
# The layers and their one rule (docs/architecture.md "Layers"): an include goes down, never up
# or sideways between siblings.
#
#   api/  workers/                 compose everything below; never each other
#   infra/programs/                the worker runtime, the CLI, configuration, the broker
#   infra/store/  infra/adapters/  the domain's tables | one outside party each; never each other
#   infra/plumbing/                database, queue, crypto, logging, metrics, time: no domain
#   topics/                        the topic registry and envelope
#   schemas/model/                 the pure model: no driver, nothing above it
#
# CMake's library links are the same arrows; this also catches an include that compiles only
# through a transitive include path. `dependency_rule.sh --self-test` proves that it fails on an
# arrow that goes the wrong way, in a scratch tree.
set -euo pipefail
ROOT=${1:?usage: dependency_rule.sh <project root> | --self-test}

# check <folder> <forbidden include regex> <why>: prints each offending include.
check() {
  [ -d "$1" ] || return 0
  if grep -rnE "#include [<\"]($2)" "$1" --include='*.h' --include='*.cc'; then
    echo "dependency rule: $1 must not include $3" >&2
    status=1
  fi
}

check_tree() {
  cd "$1"
  status=0
  local drivers='pqxx|librdkafka|pistache|curl/'
  check schemas "$drivers|infra/|topics/|api/|workers/" 'a driver, topics, infra, api or workers'
  check topics "$drivers|infra/|api/|workers/" 'drivers, infra, api or workers'
  check infra/plumbing 'pistache|infra/(store|adapters|programs)/|api/|workers/' \
    'the store, adapters, programs, api or workers'
  check infra/store 'pistache|curl/|infra/(adapters|programs)/|api/|workers/' \
    'adapters, programs, api or workers (a port the store needs is a model type)'
  check infra/adapters 'pistache|pqxx|infra/(store|programs)/|api/|workers/' \
    'PostgreSQL, the store, programs, api or workers'
  check infra/programs 'pistache|api/|workers/' 'the HTTP server, api or workers'
  check workers 'pistache|api/' 'the HTTP server or api'
  check api 'workers/' 'workers'
  return $status
}

if [ "$ROOT" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/infra/store" "$scratch/infra/adapters" "$scratch/schemas/model"
  echo '#include "infra/plumbing/pg/pool.h"' >"$scratch/infra/store/fine.cc"
  (check_tree "$scratch" >/dev/null 2>&1) || { echo "self-test: a clean tree was refused" >&2; exit 1; }
  for arrow in 'infra/store/up.cc:infra/programs/cli/commands.h' \
    'infra/store/sideways.cc:infra/adapters/chain/chain_adapter.h' \
    'infra/adapters/sideways.cc:infra/store/payouts/payouts.h' \
    'schemas/model/up.cc:infra/plumbing/pg/pool.h'; do
    file=${arrow%%:*}
    echo "#include \"${arrow#*:}\"" >"$scratch/$file"
    if (check_tree "$scratch" >/dev/null 2>&1); then
      echo "self-test: $file including ${arrow#*:} was not refused" >&2
      exit 1
    fi
    rm "$scratch/$file"
  done
  echo "self-test: every wrong arrow refused"
  exit 0
fi
check_tree "$ROOT"
