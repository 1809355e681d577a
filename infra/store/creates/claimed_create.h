// The start every create shares (payouts, fiat payouts, collections), in one statement: the
// Idempotency-Key claimed for the new resource's id, the organization's limit overrides read, and
// the resource inserted when the claim wrote the key. One round trip instead of three (claim,
// limits, insert), and one statement for a whole group of creates (GroupedWrites reads it ahead
// for the group); a create written alone is a group of one.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <utility>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/money/spend.h"
#include "infra/store/sql/text.h"
#include "schemas/model/common/result.h"
#include "schemas/model/money/limits.h"

namespace payrail::infra::store::claimed_create {

// The statement of a resource's create. `types` are the array types of the insert's own
// parameters (from $7; $1-$6 are each request's organization, mode, key, endpoint, request hash
// and id), `columns` their names, and `insert` is "INSERT INTO <table> (<columns>) SELECT
// <values> FROM request WHERE id IN (SELECT resource_id FROM claimed) ORDER BY position RETURNING
// <the resource's column list>". Each returned row is, for one request in order: `request_id`,
// the insert's columns (NULL when nothing was inserted), `claimed` (whether the claim wrote the
// key), then the limit overrides. A key given twice in one group is claimed by its first request.
template <class Types, class Columns, class Insert>
constexpr auto claimed_creates(const Types& types, const Columns& columns, const Insert& insert) {
  return sql::concat(
      "WITH request AS MATERIALIZED (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], "
      "$4::text[], $5::text[], $6::text[], ",
      types,
      ") WITH ORDINALITY AS r (org_id, mode, idempotency_key, endpoint, request_hash, id, ",
      columns,
      ", position)), claimed AS (INSERT INTO idempotency_keys (org_id, mode, idempotency_key, "
      "endpoint, request_hash, resource_id) SELECT org_id, mode, idempotency_key, endpoint, "
      "decode(request_hash, 'hex'), id FROM request ORDER BY position ON CONFLICT DO NOTHING "
      "RETURNING resource_id), created AS (",
      insert, ") SELECT request.id AS request_id, created.*, request.id IN (SELECT resource_id FROM "
              "claimed) AS claimed, ",
      spend::override_columns("l"),
      " FROM request LEFT JOIN created ON created.id = request.id LEFT JOIN organization_limits l "
      "ON l.org_id = request.org_id AND l.mode = request.mode ORDER BY request.position");
}

// One request of a create statement: its claim's values, then its insert's.
template <class... InsertValues>
GroupedWrites::Ahead request(const pg::Statement& statement, const idempotency::Scope& scope,
                             const std::string& endpoint, const std::string& request_hash,
                             const std::string& id, InsertValues... insert_values) {
  return {&statement,
          {scope.org_id, std::string(model::mode_name(scope.mode)), scope.key, endpoint,
           crypto::hex_encode(request_hash), id, std::optional<std::string>(insert_values)...},
          id};
}

struct Claimed {
  // The key was used already: its record, and nothing was written.
  std::optional<idempotency::Record> existing;
  // Otherwise the organization's limits (for the checks and the spend reservation that follow)
  // and the inserted row: the resource's columns, indexed as in its column list.
  model::PayoutLimits limits;
  std::optional<pqxx::row> created;
};

// The claimed create of one request: the row its group read ahead when there is one, or else
// its statement run for it alone. `created_columns` is how many columns the insert returns (the
// resource's column list). When the key was used already, its record.
model::Result<Claimed> run(pqxx::work& tx, const GroupedWrites::Ahead& request,
                           const idempotency::Scope& scope, int created_columns);

}  // namespace payrail::infra::store::claimed_create
