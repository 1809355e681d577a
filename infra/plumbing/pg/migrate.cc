#include "infra/plumbing/pg/migrate.h"

#include <map>
#include <string>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "schemas/model/contract/contracts.h"

namespace payrail::infra::pg {
namespace {

constexpr const char* kLockSql = "SELECT pg_advisory_lock(7255041)";
constexpr const char* kUnlockSql = "SELECT pg_advisory_unlock(7255041)";
constexpr const char* kCreateTableSql = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  file_name   text PRIMARY KEY,
  checksum    text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
))sql";

std::map<std::string, std::string> applied_checksums(pqxx::connection& connection) {
  pqxx::nontransaction tx(connection);
  std::map<std::string, std::string> applied;
  for (const auto& row : tx.exec("SELECT file_name, checksum FROM schema_migrations")) {
    applied.emplace(row["file_name"].as<std::string>(), row["checksum"].as<std::string>());
  }
  return applied;
}

model::Status apply_pending(pqxx::connection& connection) {
  const auto applied = applied_checksums(connection);
  for (const auto& migration : model::sql_migrations()) {
    const std::string name(migration.name);
    const auto checksum = crypto::sha256_hex(migration.content);
    if (auto found = applied.find(name); found != applied.end()) {
      if (found->second != checksum) {
        return model::Error::make(model::ErrorCode::internal_error,
                                  "migration " + name + " was edited after it was applied");
      }
      continue;
    }
    pqxx::work tx(connection);
    tx.exec(std::string(migration.content));
    tx.exec_params("INSERT INTO schema_migrations (file_name, checksum) VALUES ($1, $2)", name,
                   checksum);
    tx.commit();
    log::info("migration.applied", {{"file", name}});
  }
  return model::ok_status();
}

}  // namespace

model::Status apply_migrations(pqxx::connection& connection) {
  try {
    pqxx::nontransaction(connection).exec(kLockSql);
    pqxx::nontransaction(connection).exec(kCreateTableSql);
    auto status = apply_pending(connection);
    pqxx::nontransaction(connection).exec(kUnlockSql);
    return status;
  } catch (const std::exception& failure) {
    log::error("migration.failed", {{"error", failure.what()}});
    return model::Error::make(model::ErrorCode::internal_error,
                              std::string("migration failed: ") + failure.what());
  }
}

}  // namespace payrail::infra::pg
