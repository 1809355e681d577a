// Payout limits per organization and mode: the effective limits (operator overrides or the
// defaults) and the daily/monthly spend counters, reserved atomically at creation.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>

#include "infra/pg/pool.h"

#include "schemas/model/limits.h"
#include "schemas/model/result.h"

namespace payrail::infra::repositories::spend {

model::PayoutLimits effective_limits(pqxx::work& tx, std::string_view org_id, model::Mode mode);

// Adds `amount_usd` to today's and this month's counters unless that would pass a limit; the
// error is limit_exceeded naming which. Counter rows are locked, so concurrent creates cannot
// pass the limit together.
model::Status reserve(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                      const std::string& amount_usd, const model::PayoutLimits& limits);

// Gives a payout's amount back to the counters of the day and month it was created in.
void give_back(pqxx::work& tx, std::string_view payout_id);

struct LimitOverrides {
  std::optional<std::string> auto_approval_usd;  // nullopt: the mode's default
  std::optional<std::string> per_payout_usd;
  std::optional<std::string> daily_usd;
  std::optional<std::string> monthly_usd;
};

// Operator action: replaces the organization's overrides for `mode`.
model::Status set_overrides(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                            const LimitOverrides& overrides);

}  // namespace payrail::infra::repositories::spend
