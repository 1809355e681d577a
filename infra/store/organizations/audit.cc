#include "infra/store/organizations/audit.h"

#include <algorithm>

#include "infra/store/sql/sql.h"

namespace payrail::infra::store::audit {
namespace {

constexpr int kListLimitMax = 1000;

constexpr pg::Statement kInsert{"audit_insert", R"sql(
INSERT INTO audit_log (actor, action, org_id, resource_type, resource_id, details)
VALUES ($1, $2, $3, $4, $5, $6))sql"};

constexpr pg::Statement kList{"audit_list",
                              "SELECT actor, action, org_id, resource_type, resource_id, details, "
                              "" PAYRAIL_TIMESTAMP("occurred_at") " FROM audit_log "
                              "WHERE ($1::text IS NULL OR org_id = $1) "
                              "ORDER BY occurred_at DESC, id DESC LIMIT $2", pg::Plan::custom};

}  // namespace

void record(pqxx::work& tx, const Entry& entry) {
  pg::exec(tx, kInsert, entry.actor, entry.action, entry.org_id, entry.resource_type,
           entry.resource_id, entry.details);
}

model::Result<std::vector<Row>> list(pg::Pool& pool, const std::optional<std::string>& org_id,
                                     int limit) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<Row>> {
    std::vector<Row> rows;
    for (const auto& row : pg::exec(tx, kList, org_id, std::clamp(limit, 1, kListLimitMax))) {
      rows.push_back({{row[0].as<std::string>(), row[1].as<std::string>(), optional_text(row[2]),
                       row[3].as<std::string>(), row[4].as<std::string>(), optional_text(row[5])},
                      row[6].as<std::string>()});
    }
    return rows;
  });
}

}  // namespace payrail::infra::store::audit
