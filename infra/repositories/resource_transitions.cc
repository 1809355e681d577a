#include "infra/repositories/resource_transitions.h"

#include "infra/metrics/metrics.h"
#include "infra/pg/pool.h"

namespace payrail::infra::repositories::resource_transitions {
namespace {

// Returns the seconds since the resource's first logged state (0 for the first itself: the
// statement does not see the row it inserts).
constexpr pg::Statement kInsert{"resource_transitions_insert", R"sql(
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger, actor)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING coalesce(extract(epoch FROM clock_timestamp() - (
  SELECT occurred_at FROM resource_transitions WHERE resource_id = $2 ORDER BY id LIMIT 1)), 0)
  ::float8)sql"};

std::optional<std::string> text(std::optional<std::string_view> value) {
  if (!value) return std::nullopt;
  return std::string(*value);
}

}  // namespace

void log(pqxx::work& tx, const Logged& change) {
  const auto rows =
      pg::exec(tx, kInsert, std::string(change.resource_type), std::string(change.resource_id),
               text(change.from_status), std::string(change.to_status), std::string(change.trigger),
               text(change.actor));
  count_after_commit(change.resource_type, change.to_status, !change.from_status,
                     rows[0][0].as<double>());
}

void count_after_commit(std::string_view resource_type, std::string_view to_status, bool created,
                        double seconds_since_created) {
  pg::after_commit([resource = std::string(resource_type), status = std::string(to_status), created,
                    seconds_since_created] {
    metrics::record_transition(resource, status, created, seconds_since_created);
  });
}

}  // namespace payrail::infra::repositories::resource_transitions
