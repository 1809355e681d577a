#include "infra/repositories/resource_transitions.h"

#include "infra/pg/pool.h"

namespace payrail::infra::repositories::resource_transitions {
namespace {

constexpr pg::Statement kInsert{"resource_transitions_insert", R"sql(
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger, actor)
VALUES ($1, $2, $3, $4, $5, $6))sql"};

std::optional<std::string> text(std::optional<std::string_view> value) {
  if (!value) return std::nullopt;
  return std::string(*value);
}

}  // namespace

void log(pqxx::work& tx, const Logged& change) {
  pg::exec(tx, kInsert, std::string(change.resource_type), std::string(change.resource_id),
           text(change.from_status), std::string(change.to_status), std::string(change.trigger),
           text(change.actor));
}

}  // namespace payrail::infra::repositories::resource_transitions
