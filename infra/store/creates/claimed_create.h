// The start both kinds of payout create share, in one statement: the Idempotency-Key claimed for
// the new resource's id, the organization's limit overrides read, and the resource inserted when
// the claim wrote the key; then the per-payout limit (limit_exceeded). One round trip instead of
// three (claim, limits, insert) for every create.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/grouped_writes.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/money/spend.h"
#include "schemas/model/common/result.h"
#include "schemas/model/money/limits.h"

// The statement of a claimed create. `insert` is "INSERT INTO <table> (<columns>) SELECT
// <values> FROM claimed RETURNING <columns>": it inserts only when the claim wrote the key, and
// its own parameters start at $7 ($1-$6: organization, mode, key, endpoint, request hash, id).
// The one row it returns is the insert's columns (NULL when nothing was inserted), whether the
// key was claimed, then the limit overrides (NULL when the organization has none).
#define PAYRAIL_CLAIMED_CREATE(insert) \
  "WITH claimed AS (INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, "     \
  "request_hash, resource_id) VALUES ($1::text, $2::text, $3::text, $4::text, $5::bytea, "       \
  "$6::text) ON CONFLICT DO NOTHING RETURNING 1), created AS (" insert                           \
  ") SELECT created.*, EXISTS (SELECT 1 FROM claimed), " PAYRAIL_SPEND_OVERRIDE_COLUMNS("l")     \
  " FROM (VALUES (1)) AS one LEFT JOIN created ON true "                                         \
  "LEFT JOIN organization_limits l ON l.org_id = $1::text AND l.mode = $2::text"

// The same for a group of creates, read ahead by its fast pass (pg::GroupedWrites::Ahead).
// `columns` names the insert's columns, `insert` is "INSERT INTO <table> (<columns>) SELECT
// <values> FROM request WHERE id IN (SELECT resource_id FROM claimed) ORDER BY position
// RETURNING <columns>", reading the unnest of `types` (the insert's own parameters' array types,
// from $7) AS `request`. Each returned row is the request's id, then what PAYRAIL_CLAIMED_CREATE
// returns for it. A key given twice in the group is claimed by its first request only.
#define PAYRAIL_CLAIMED_CREATES(types, columns, insert) \
  "WITH request AS MATERIALIZED (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], "       \
  "$4::text[], $5::text[], $6::text[], " types ") WITH ORDINALITY AS r (org_id, mode, "            \
  "idempotency_key, endpoint, request_hash, id, " columns ", position)), "                        \
  "claimed AS (INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, "           \
  "request_hash, resource_id) SELECT org_id, mode, idempotency_key, endpoint, "                   \
  "decode(request_hash, 'hex'), id FROM request ORDER BY position ON CONFLICT DO NOTHING "        \
  "RETURNING resource_id), created AS (" insert ") SELECT request.id, created.*, "                 \
  "request.id IN (SELECT resource_id FROM claimed), " PAYRAIL_SPEND_OVERRIDE_COLUMNS("l")          \
  " FROM request LEFT JOIN created ON created.id = request.id LEFT JOIN organization_limits l "    \
  "ON l.org_id = request.org_id AND l.mode = request.mode ORDER BY request.position"

namespace payrail::infra::store::claimed_create {

struct Claimed {
  // The key was used already: its record, and nothing was written.
  std::optional<idempotency::Record> existing;
  // Otherwise the organization's limits (for the spend reservation that follows the hold) and the
  // inserted row, the insert's RETURNING columns first.
  model::PayoutLimits limits;
  std::optional<pqxx::row> created;
};

// Reads the row a PAYRAIL_CLAIMED_CREATE statement returned. An error (limit_exceeded) leaves
// the key and the row written: the caller rolls back, as for any refusal.
model::Result<Claimed> read(pqxx::work& tx, const idempotency::Scope& scope, const pqxx::row& row,
                            const std::string& amount_usd);

// The row of a PAYRAIL_CLAIMED_CREATES statement for one create: its claim's values, then its
// insert's.
template <class... InsertValues>
pg::GroupedWrites::Ahead ahead(const pg::Statement& statement, const idempotency::Scope& scope,
                               const std::string& endpoint, const std::string& request_hash,
                               const std::string& id, InsertValues... insert_values) {
  return {&statement,
          {scope.org_id, std::string(model::mode_name(scope.mode)), scope.key, endpoint,
           crypto::hex_encode(request_hash), id, std::optional<std::string>(insert_values)...}};
}

// The claimed create of one request: the row its group read ahead with `ahead` (a
// PAYRAIL_CLAIMED_CREATES) when there is one, or else `statement` (a PAYRAIL_CLAIMED_CREATE) run
// with the claim's parameters, then the insert's.
template <class... InsertArgs>
model::Result<Claimed> run(pqxx::work& tx, const pg::Statement& statement,
                           const pg::Statement& ahead, const idempotency::Scope& scope,
                           const std::string& endpoint, const std::string& request_hash,
                           const std::string& id, const std::string& amount_usd,
                           InsertArgs&&... insert_args) {
  if (auto row = pg::take_ahead(tx, ahead, id)) {
    return read(tx, scope, row->slice(1, row->size()), amount_usd);
  }
  const auto rows =
      pg::exec(tx, statement, scope.org_id, std::string(model::mode_name(scope.mode)), scope.key,
               endpoint, pqxx::binarystring(request_hash.data(), request_hash.size()), id,
               std::forward<InsertArgs>(insert_args)...);
  if (rows.size() != 1) throw std::logic_error("a claimed create returned no row");
  return read(tx, scope, rows[0], amount_usd);
}

}  // namespace payrail::infra::store::claimed_create
