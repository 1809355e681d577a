#include "infra/repositories/idempotency.h"

namespace payrail::infra::repositories::idempotency {
namespace {

constexpr pg::Statement kClaim{
    "idempotency_claim",
    "INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, request_hash, "
    "resource_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1"};

constexpr pg::Statement kFind{
    "idempotency_find",
    "SELECT endpoint, request_hash, resource_id, response_status, response_body, "
    "extract(epoch FROM now() - created_at)::int, response_request_id FROM idempotency_keys "
    "WHERE org_id = $1 AND mode = $2 AND idempotency_key = $3"};

constexpr pg::Statement kComplete{
    "idempotency_complete",
    "UPDATE idempotency_keys SET response_status = $4, response_body = $5, "
    "response_request_id = $6, completed_at = now() "
    "WHERE org_id = $1 AND mode = $2 AND idempotency_key = $3 AND completed_at IS NULL"};

constexpr pg::Statement kPurge{
    "idempotency_purge",
    "DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys "
    "WHERE created_at < now() - make_interval(hours => $1) LIMIT $2)"};

std::string mode_text(const Scope& scope) {
  return std::string(model::mode_name(scope.mode));
}

}  // namespace

bool claim(pqxx::work& tx, const Scope& scope, const std::string& endpoint,
           const std::string& request_hash, const std::string& resource_id) {
  return !pg::exec(tx, kClaim, scope.org_id, mode_text(scope), scope.key, endpoint,
                   pqxx::binarystring(request_hash.data(), request_hash.size()), resource_id)
              .empty();
}

std::optional<Record> find(pqxx::transaction_base& tx, const Scope& scope) {
  const auto rows = pg::exec(tx, kFind, scope.org_id, mode_text(scope), scope.key);
  if (rows.empty()) return std::nullopt;
  const auto& row = rows[0];
  Record record;
  record.endpoint = row[0].as<std::string>();
  record.request_hash = pqxx::binarystring(row[1]).str();
  record.resource_id = row[2].as<std::string>();
  if (!row[3].is_null()) record.response_status = row[3].as<int>();
  if (!row[4].is_null()) record.response_body = row[4].as<std::string>();
  record.age_seconds = row[5].as<int>();
  if (!row[6].is_null()) record.response_request_id = row[6].as<std::string>();
  return record;
}

model::Result<std::optional<Record>> find(pg::Pool& pool, const Scope& scope) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::optional<Record>> {
    return find(tx, scope);
  });
}

bool complete(pqxx::transaction_base& tx, const Scope& scope, int status, const std::string& body,
              const std::string& request_id) {
  return pg::exec(tx, kComplete, scope.org_id, mode_text(scope), scope.key, status, body,
                  request_id)
             .affected_rows() == 1;
}

model::Result<long> purge_expired(pg::Pool& pool, int batch_max) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return static_cast<long>(pg::exec(tx, kPurge, kRetentionHours, batch_max).affected_rows());
  });
}

}  // namespace payrail::infra::repositories::idempotency
