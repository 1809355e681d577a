#include "infra/store/creates/idempotency.h"

#include <set>
#include <tuple>

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::idempotency {
namespace {

constexpr pg::Statement kClaim{
    "idempotency_claim",
    "INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, request_hash, "
    "resource_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1"};

// The columns find() maps, by name (sql::column).
constexpr sql::Text kFindColumns =
    "endpoint, request_hash, resource_id, response_status, response_body, extract(epoch FROM "
    "now() - created_at)::int AS age_seconds, response_request_id";
constexpr auto kFindSql =
    sql::concat("SELECT ", kFindColumns,
                " FROM idempotency_keys WHERE org_id = $1 AND mode = $2 AND idempotency_key = $3");
constexpr pg::Statement kFind{"idempotency_find", kFindSql.c_str()};

constexpr pg::Statement kComplete{
    "idempotency_complete",
    "UPDATE idempotency_keys SET response_status = $4, response_body = $5, "
    "response_request_id = $6, completed_at = now() "
    "WHERE org_id = $1 AND mode = $2 AND idempotency_key = $3 AND completed_at IS NULL"};

// The columns complete_many() reads, by name.
constexpr sql::Text kCompletedColumns = "k.org_id, k.mode, k.idempotency_key";
constexpr auto kCompleteManySql = sql::concat(
    "UPDATE idempotency_keys k SET response_status = a.status, response_body = a.body, "
    "response_request_id = a.request_id, completed_at = now() FROM unnest($1::text[], "
    "$2::text[], $3::text[], $4::int[], $5::text[], $6::text[]) AS a(org_id, mode, "
    "idempotency_key, status, body, request_id) WHERE k.org_id = a.org_id AND k.mode = a.mode AND "
    "k.idempotency_key = a.idempotency_key AND k.completed_at IS NULL RETURNING ",
    kCompletedColumns);
constexpr pg::Statement kCompleteMany{"idempotency_complete_many", kCompleteManySql.c_str()};

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
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kFindColumns, name);
  };
  Record record;
  record.endpoint = row[at("endpoint")].as<std::string>();
  record.request_hash = pqxx::binarystring(row[at("request_hash")]).str();
  record.resource_id = row[at("resource_id")].as<std::string>();
  if (const auto status = row[at("response_status")]; !status.is_null()) {
    record.response_status = status.as<int>();
  }
  record.response_body = optional_text(row[at("response_body")]);
  record.age_seconds = row[at("age_seconds")].as<int>();
  record.response_request_id = optional_text(row[at("response_request_id")]);
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

std::vector<bool> complete_many(pqxx::transaction_base& tx, const std::vector<Answer>& answers) {
  std::vector<std::string> org_ids, modes, keys, bodies, request_ids;
  std::vector<long> statuses;
  for (const auto& answer : answers) {
    org_ids.push_back(answer.scope->org_id);
    modes.push_back(mode_text(*answer.scope));
    keys.push_back(answer.scope->key);
    statuses.push_back(answer.status);
    bodies.push_back(*answer.body);
    request_ids.push_back(*answer.request_id);
  }
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kCompletedColumns, name);
  };
  std::set<std::tuple<std::string, std::string, std::string>> stored;
  for (const auto& row : pg::exec(tx, kCompleteMany, pg::sql_array(org_ids), pg::sql_array(modes),
                                  pg::sql_array(keys), pg::sql_array(statuses),
                                  pg::sql_array(bodies), pg::sql_array(request_ids))) {
    stored.emplace(row[at("org_id")].as<std::string>(), row[at("mode")].as<std::string>(),
                   row[at("idempotency_key")].as<std::string>());
  }
  std::vector<bool> written;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    written.push_back(stored.contains({org_ids[i], modes[i], keys[i]}));
  }
  return written;
}

model::Result<long> purge_expired(pg::Pool& pool, int batch_max) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return static_cast<long>(pg::exec(tx, kPurge, kRetentionHours, batch_max).affected_rows());
  });
}

}  // namespace payrail::infra::store::idempotency
