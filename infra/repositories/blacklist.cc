#include "infra/repositories/blacklist.h"

#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::blacklist {
namespace {

constexpr pg::Statement kAdd{
    "blacklist_add",
    "INSERT INTO screening_blacklist (kind, value, normalized, reason) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (kind, normalized) DO UPDATE SET reason = EXCLUDED.reason"};
constexpr pg::Statement kRemove{
    "blacklist_remove", "DELETE FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};
constexpr pg::Statement kList{
    "blacklist_list", "SELECT id, kind, value, coalesce(reason, ''), " PAYRAIL_TIMESTAMP(
                          "created_at") " FROM screening_blacklist ORDER BY id LIMIT 10000"};
constexpr pg::Statement kContains{
    "blacklist_contains", "SELECT 1 FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};

}  // namespace

model::Status add(pg::Pool& pool, const std::string& kind, const std::string& value,
                  const std::string& normalized, const std::string& reason) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kAdd, kind, value, normalized, reason);
    return model::ok_status();
  });
}

model::Result<bool> remove(pg::Pool& pool, const std::string& kind, const std::string& normalized) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return pg::exec(tx, kRemove, kind, normalized).affected_rows() > 0;
  });
}

model::Result<std::vector<Entry>> list(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<Entry>> {
    std::vector<Entry> entries;
    for (const auto& row : pg::exec(tx, kList)) {
      entries.push_back({row[0].as<long>(), row[1].as<std::string>(), row[2].as<std::string>(),
                         row[3].as<std::string>(), row[4].as<std::string>()});
    }
    return entries;
  });
}

bool contains(pqxx::work& tx, const std::string& kind, const std::string& normalized) {
  return !pg::exec(tx, kContains, kind, normalized).empty();
}

}  // namespace payrail::infra::repositories::blacklist
