// Payout limits per organization and mode: the effective limits (operator overrides or the
// defaults) and the daily/monthly spend counters, reserved atomically at creation. Stablecoin and
// fiat payouts share one set of counters (amounts in USD).
#pragma once

#include <pqxx/pqxx>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/text.h"

#include "schemas/model/common/result.h"
#include "schemas/model/money/limits.h"

namespace payrail::infra::store::spend {

// The limit overrides of organization_limits (alias `table`), as limits_with_overrides() reads
// them, each named as its column (auto_approval_usd, per_payout_usd, daily_usd, monthly_usd), for
// a statement that reads them with other things.
template <std::size_t M>
constexpr auto override_columns(const char (&table)[M]) {
  return sql::concat(table, ".auto_approval_usd::text AS auto_approval_usd, ", table,
                     ".per_payout_usd::text AS per_payout_usd, ", table,
                     ".daily_usd::text AS daily_usd, ", table, ".monthly_usd::text AS monthly_usd");
}

model::PayoutLimits effective_limits(pqxx::work& tx, std::string_view org_id, model::Mode mode);

// The mode's defaults with the overrides of `row` (each NULL one keeps its default), read by
// their names in override_columns(), which the row selects from column `first` on.
model::PayoutLimits limits_with_overrides(const pqxx::row& row, int first, model::Mode mode);

// The effective limits of many organizations and modes with one statement (a screening batch's),
// by (organization, mode); every scope asked for has an entry.
using Scope = std::pair<std::string, model::Mode>;
using LimitsByScope = std::map<Scope, model::PayoutLimits>;
LimitsByScope effective_limits(pqxx::transaction_base& tx, const std::vector<Scope>& scopes);

// Amounts at or below the auto-approval limit proceed without a member's approval.
bool within_auto_approval(const std::string& amount_usd, const model::PayoutLimits& limits);

// limit_exceeded when `amount_usd` is above the per-payout limit.
model::Status check_per_payout(const std::string& amount_usd, const model::PayoutLimits& limits);

// Adds `amount_usd` to today's and this month's counters unless that would pass a limit; the
// error is limit_exceeded naming which. Counter rows are locked, so concurrent creates cannot
// pass the limit together. In the first pass of a group of creates (store::grouped) only the amount
// alone is checked here; the counters take the group's sum at the commit, or the transaction
// fails and the group is applied again request by request (store::GroupedWrites).
model::Status reserve(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                      const std::string& amount_usd, const model::PayoutLimits& limits);

// What a payout (stablecoin or fiat) reserved: its USD value and when it was created.
struct Reserved {
  std::string_view org_id;
  model::Mode mode = model::Mode::test;
  std::string_view amount_usd;
  std::string_view created_at;  // ISO 8601 UTC: the counters' day and month
};

// Gives a payout's amount back to the counters of the day and month it was created in, just
// before the transaction commits (store::defer_row).
void give_back(pqxx::work& tx, const Reserved& reserved);

struct LimitOverrides {
  std::optional<std::string> auto_approval_usd;  // nullopt: the mode's default
  std::optional<std::string> per_payout_usd;
  std::optional<std::string> daily_usd;
  std::optional<std::string> monthly_usd;
};

// Operator action: replaces the organization's overrides for `mode`.
model::Status set_overrides(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                            const LimitOverrides& overrides);

}  // namespace payrail::infra::store::spend
