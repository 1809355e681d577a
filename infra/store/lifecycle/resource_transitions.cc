#include "infra/store/sql/deferred_writes.h"
#include "infra/store/lifecycle/resource_transitions.h"

#include "infra/plumbing/metrics/metrics.h"
#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::resource_transitions {
namespace {

// Deferred to the end of the transaction (store::defer_row): a worker batch's transitions are one
// statement. Returns, for the metrics, each state reached and the seconds since the resource's
// first logged state (0 for the first itself: the statement does not see the rows it inserts).
constexpr pg::Statement kInsert{"resource_transitions_insert", R"sql(
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger, actor)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
RETURNING resource_type, to_status, from_status IS NULL AS created,
  coalesce(extract(epoch FROM clock_timestamp() - (
    SELECT first.occurred_at FROM resource_transitions first
    WHERE first.resource_id = resource_transitions.resource_id ORDER BY first.id LIMIT 1)), 0)
  ::float8 AS seconds_since_created)sql"};

std::optional<std::string> text(std::optional<std::string_view> value) {
  if (!value) return std::nullopt;
  return std::string(*value);
}

// Counts, once the transaction commits, the state changes the log statement returned (defer_row's
// handler): each row is the resource type, the state reached, whether it is the first, and the
// seconds since the resource's first state.
void count_logged(const pqxx::row& row) {
  pg::after_commit([resource = row["resource_type"].as<std::string>(),
                    status = row["to_status"].as<std::string>(), created = row["created"].as<bool>(),
                    seconds_since_created = row["seconds_since_created"].as<double>()] {
    metrics::record_transition(resource, status, created, seconds_since_created);
  });
}

}  // namespace

void log(pqxx::work& tx, const Logged& change) {
  store::defer_row(
      tx, kInsert, store::LockOrder::transition_logs,
      {std::string(change.resource_type), std::string(change.resource_id), text(change.from_status),
       std::string(change.to_status), std::string(change.trigger), text(change.actor)},
      count_logged);
}

}  // namespace payrail::infra::store::resource_transitions
