#include "infra/store/organizations/rails.h"

#include "infra/store/organizations/audit.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::rails {
namespace {

constexpr pg::Statement kIsEnabled{"rails_is_enabled", R"sql(
SELECT 1 FROM organization_rails WHERE org_id = $1 AND kind = $2 AND name = $3)sql"};

constexpr pg::Statement kOrganizationExists{"rails_organization_exists", R"sql(
SELECT 1 FROM organizations WHERE id = $1)sql"};

constexpr pg::Statement kEnable{"rails_enable", R"sql(
INSERT INTO organization_rails (org_id, kind, name, enabled_by) VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING)sql"};

constexpr pg::Statement kDisable{"rails_disable", R"sql(
DELETE FROM organization_rails WHERE org_id = $1 AND kind = $2 AND name = $3)sql"};

// The columns list() maps, by name (sql::column).
constexpr auto kColumns = sql::concat("kind, name, enabled_by, ", sql::timestamp("enabled_at"));
constexpr auto kListSql = sql::concat(
    "SELECT ", kColumns, " FROM organization_rails WHERE org_id = $1 ORDER BY kind, name");
constexpr pg::Statement kList{"rails_list", kListSql.c_str()};

void record(pqxx::work& tx, std::string_view org_id, RailKind kind, std::string_view name,
            std::string_view actor, std::string_view action) {
  audit::record(tx, {.actor = std::string(actor),
                     .action = std::string(action),
                     .org_id = std::string(org_id),
                     .resource_type = std::string(kind_name(kind)),
                     .resource_id = std::string(name)});
}

}  // namespace

std::string_view kind_name(RailKind kind) {
  return kind == RailKind::fiat_corridor ? "fiat_corridor" : "collection_rail";
}

bool is_enabled(pqxx::work& tx, std::string_view org_id, RailKind kind, std::string_view name) {
  return !pg::exec(tx, kIsEnabled, std::string(org_id), std::string(kind_name(kind)),
                   std::string(name))
              .empty();
}

model::Result<bool> is_enabled(pg::Pool& pool, std::string_view org_id, RailKind kind,
                               std::string_view name) {
  return pool.transact(
      [&](pqxx::work& tx) -> model::Result<bool> { return is_enabled(tx, org_id, kind, name); });
}

model::Status enable(pg::Pool& pool, std::string_view org_id, RailKind kind, std::string_view name,
                     std::string_view actor) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    if (pg::exec(tx, kOrganizationExists, std::string(org_id)).empty()) {
      return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
    }
    const auto inserted = pg::exec(tx, kEnable, std::string(org_id), std::string(kind_name(kind)),
                                   std::string(name), std::string(actor));
    if (inserted.affected_rows() == 1) record(tx, org_id, kind, name, actor, "rail.enabled");
    return model::ok_status();
  });
}

model::Result<bool> disable(pg::Pool& pool, std::string_view org_id, RailKind kind,
                            std::string_view name, std::string_view actor) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    const auto deleted = pg::exec(tx, kDisable, std::string(org_id), std::string(kind_name(kind)),
                                  std::string(name));
    if (deleted.affected_rows() == 0) return false;
    record(tx, org_id, kind, name, actor, "rail.disabled");
    return true;
  });
}

model::Result<std::vector<EnabledRail>> list(pg::Pool& pool, std::string_view org_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<EnabledRail>> {
    std::vector<EnabledRail> rails;
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kColumns, name);
    };
    for (const auto& row : pg::exec(tx, kList, std::string(org_id))) {
      rails.push_back({row[at("kind")].as<std::string>() == "fiat_corridor"
                           ? RailKind::fiat_corridor
                           : RailKind::collection_rail,
                       row[at("name")].as<std::string>(), row[at("enabled_by")].as<std::string>(),
                       row[at("enabled_at")].as<std::string>()});
    }
    return rails;
  });
}

}  // namespace payrail::infra::store::rails
