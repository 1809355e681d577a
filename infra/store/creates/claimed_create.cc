#include "infra/store/creates/claimed_create.h"

#include "infra/store/money/spend.h"
#include "schemas/model/common/invariant.h"

namespace payrail::infra::store::claimed_create {

model::Result<Claimed> run(pqxx::work& tx, const GroupedWrites::Ahead& request,
                           const idempotency::Scope& scope, int created_columns) {
  auto row = take_ahead(tx, *request.statement, request.key);
  if (!row) {
    const auto rows = pg::exec_rows(tx, *request.statement, {request.row});
    model::invariant(rows.size() == 1, "a create statement returns one row per request");
    row = rows[0];
  }
  if (!(*row)["claimed"].as<bool>()) {
    auto existing = idempotency::find(tx, scope);
    // The key's record went between the claim and the read (purged past retention): nothing was
    // written, and the same request sent again claims the key.
    if (!existing) {
      return model::Error::make(model::ErrorCode::service_unavailable,
                                "The Idempotency-Key was released meanwhile; retry the request.");
    }
    return Claimed{std::move(existing), {}, {}};
  }
  const auto limits =
      spend::limits_with_overrides(*row, row->column_number("auto_approval_usd"), scope.mode);
  const auto first = row->column_number("request_id") + 1;
  return Claimed{std::nullopt, limits, row->slice(first, first + created_columns)};
}

}  // namespace payrail::infra::store::claimed_create
