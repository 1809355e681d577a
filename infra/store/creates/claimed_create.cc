#include "infra/store/creates/claimed_create.h"

#include <stdexcept>

namespace payrail::infra::store::claimed_create {

namespace {
constexpr int kTrailingColumns = 5;  // whether claimed, then the four overrides
}  // namespace

model::Result<Claimed> read(pqxx::work& tx, const idempotency::Scope& scope, const pqxx::row& row,
                            const std::string& amount_usd) {
  if (row.size() < kTrailingColumns) throw std::logic_error("a claimed create returned no row");
  const int claimed_column = static_cast<int>(row.size()) - kTrailingColumns;
  if (!row[claimed_column].as<bool>()) {
    auto existing = idempotency::find(tx, scope);
    // The key's record went between the claim and the read (purged past retention): nothing was
    // written, and the same request sent again claims the key.
    if (!existing) {
      return model::Error::make(model::ErrorCode::service_unavailable,
                                "The Idempotency-Key was released meanwhile; retry the request.");
    }
    return Claimed{std::move(existing), {}, {}};
  }
  auto limits = spend::limits_with_overrides(row, claimed_column + 1, scope.mode);
  if (auto within = spend::check_per_payout(amount_usd, limits); !within.ok()) {
    return within.error();
  }
  return Claimed{std::nullopt, std::move(limits), row};
}

}  // namespace payrail::infra::store::claimed_create
