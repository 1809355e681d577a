#!/usr/bin/env bash
# The dependency rule of the architecture: schemas <- topics, infra <- api, workers.
# schemas/ and topics/ must not include a driver (Postgres, Kafka, HTTP server or client), and
# nothing below api/ or workers/ may include them. CMake links enforce the library edges; this
# also catches an include that happens to compile through a transitive include path.
set -euo pipefail
ROOT=${1:?usage: dependency_rule.sh <project root>}
cd "$ROOT"
status=0
check() {  # check <folder> <forbidden include regex> <why>
  if grep -rnE "#include [<\"]($2)" "$1" --include='*.h' --include='*.cc'; then
    echo "dependency rule: $1 must not include $3" >&2
    status=1
  fi
}
check schemas 'pqxx|librdkafka|pistache|curl/' 'a driver'
check topics 'pqxx|librdkafka|pistache|curl/|infra/|api/|workers/' 'drivers, infra, api or workers'
check infra 'pistache|api/|workers/' 'the HTTP server, api or workers'
check workers 'pistache|api/' 'the HTTP server or api'
check api 'workers/' 'workers'
exit $status
