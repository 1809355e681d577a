#include "infra/store/organizations/audit.h"

#include <algorithm>

#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::audit {
namespace {

constexpr int kListLimitMax = 1000;

constexpr pg::Statement kInsert{"audit_insert", R"sql(
INSERT INTO audit_log (actor, action, org_id, resource_type, resource_id, details)
VALUES ($1, $2, $3, $4, $5, $6))sql"};

// The columns list() maps, by name (sql::column).
constexpr auto kColumns = sql::concat(
    "actor, action, org_id, resource_type, resource_id, details, ", sql::timestamp("occurred_at"));
// The order qualified: a bare occurred_at would name the select list's text column (in ORDER BY
// an output column's name wins over the table's), sorting by the text, to the second.
constexpr auto kListSql = sql::concat(
    "SELECT ", kColumns,
    " FROM audit_log WHERE ($1::text IS NULL OR org_id = $1) ORDER BY audit_log.occurred_at DESC, "
    "id DESC LIMIT $2");
constexpr pg::Statement kList{"audit_list", kListSql.c_str(), pg::Plan::custom};

Row read_row(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  return {{row[at("actor")].as<std::string>(), row[at("action")].as<std::string>(),
           optional_text(row[at("org_id")]), row[at("resource_type")].as<std::string>(),
           row[at("resource_id")].as<std::string>(), optional_text(row[at("details")])},
          row[at("occurred_at")].as<std::string>()};
}

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
      rows.push_back(read_row(row));
    }
    return rows;
  });
}

}  // namespace payrail::infra::store::audit
