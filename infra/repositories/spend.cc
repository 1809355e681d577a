#include "infra/repositories/spend.h"

#include <algorithm>
#include <string>
#include <vector>

#include "infra/pg/pool.h"

namespace payrail::infra::repositories::spend {
namespace {

constexpr pg::Statement kOverrides{
    "spend_overrides",
    "SELECT auto_approval_usd::text, per_payout_usd::text, daily_usd::text, monthly_usd::text "
    "FROM organization_limits WHERE org_id = $1 AND mode = $2"};

// Both periods in one round trip, day first (the order every reservation locks them in);
// returns the periods whose counter took the amount: an existing counter only while it stays
// within its limit, a new one always (reserve() checks the amount alone against the limit).
constexpr pg::Statement kReserve{"spend_reserve", R"sql(
INSERT INTO spend_counters AS c (org_id, mode, period, period_start, amount_usd)
SELECT $1, $2, period.name, period.start, $3::numeric
FROM (VALUES (1, 'day', (now() AT TIME ZONE 'UTC')::date),
             (2, 'month', date_trunc('month', now() AT TIME ZONE 'UTC')::date))
     AS period (position, name, start)
ORDER BY period.position
ON CONFLICT (org_id, mode, period, period_start)
DO UPDATE SET amount_usd = c.amount_usd + EXCLUDED.amount_usd
WHERE c.amount_usd + EXCLUDED.amount_usd
      <= CASE EXCLUDED.period WHEN 'day' THEN $4::numeric ELSE $5::numeric END
RETURNING c.period)sql"};

constexpr pg::Statement kGiveBack{"spend_give_back", R"sql(
UPDATE spend_counters c SET amount_usd = greatest(0, c.amount_usd - $3::numeric)
WHERE c.org_id = $1 AND c.mode = $2
  AND ((c.period = 'day' AND c.period_start = ($4::timestamptz AT TIME ZONE 'UTC')::date)
    OR (c.period = 'month'
        AND c.period_start = date_trunc('month', $4::timestamptz AT TIME ZONE 'UTC')::date)))sql"};

constexpr pg::Statement kSetOverrides{
    "spend_set_overrides",
    "INSERT INTO organization_limits (org_id, mode, auto_approval_usd, per_payout_usd, daily_usd, "
    "monthly_usd) VALUES ($1, $2, $3::numeric, $4::numeric, $5::numeric, $6::numeric) "
    "ON CONFLICT (org_id, mode) DO UPDATE SET auto_approval_usd = EXCLUDED.auto_approval_usd, "
    "per_payout_usd = EXCLUDED.per_payout_usd, daily_usd = EXCLUDED.daily_usd, "
    "monthly_usd = EXCLUDED.monthly_usd"};

void apply_override(const pqxx::field& field, model::Decimal& target) {
  if (field.is_null()) return;
  if (auto value = model::parse_decimal(field.as<std::string>())) target = *value;
}

}  // namespace

model::PayoutLimits effective_limits(pqxx::work& tx, std::string_view org_id, model::Mode mode) {
  auto limits = model::default_payout_limits(mode);
  const auto rows =
      pg::exec(tx, kOverrides, std::string(org_id), std::string(model::mode_name(mode)));
  if (!rows.empty()) {
    apply_override(rows[0][0], limits.auto_approval_usd);
    apply_override(rows[0][1], limits.per_payout_usd);
    apply_override(rows[0][2], limits.daily_usd);
    apply_override(rows[0][3], limits.monthly_usd);
  }
  return limits;
}

bool within_auto_approval(const std::string& amount_usd, const model::PayoutLimits& limits) {
  const auto amount = model::parse_decimal(amount_usd);
  return amount && model::compare(*amount, limits.auto_approval_usd) <= 0;
}

model::Status check_per_payout(const std::string& amount_usd, const model::PayoutLimits& limits) {
  const auto amount = model::parse_decimal(amount_usd);
  if (amount && model::compare(*amount, limits.per_payout_usd) <= 0) return model::ok_status();
  return model::Error::make(model::ErrorCode::limit_exceeded,
                            "The payout exceeds the per-payout limit of " +
                                model::format_decimal(limits.per_payout_usd) + " USD.");
}

model::Status reserve(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                      const std::string& amount_usd, const model::PayoutLimits& limits) {
  const auto amount = model::parse_decimal(amount_usd);
  const std::pair<const char*, const model::Decimal*> periods[] = {{"day", &limits.daily_usd},
                                                                   {"month", &limits.monthly_usd}};
  // A period fits when its counter took the amount and the amount alone is within the limit
  // (a new counter row is created at the amount unchecked; on any error the caller rolls back).
  std::vector<std::string> fitted;
  if (amount) {
    for (const auto& row : pg::exec(
             tx, kReserve, std::string(org_id), std::string(model::mode_name(mode)), amount_usd,
             model::format_decimal(limits.daily_usd), model::format_decimal(limits.monthly_usd))) {
      fitted.push_back(row[0].as<std::string>());
    }
  }
  for (const auto& [period, limit] : periods) {
    if (!amount || model::compare(*amount, *limit) > 0 ||
        std::find(fitted.begin(), fitted.end(), period) == fitted.end()) {
      return model::Error::make(model::ErrorCode::limit_exceeded,
                                std::string("This payout would exceed the organization's ") +
                                    (std::string(period) == "day" ? "daily" : "monthly") +
                                    " limit of " + model::format_decimal(*limit) + " USD.");
    }
  }
  return model::ok_status();
}

void give_back(pqxx::work& tx, const Reserved& reserved) {
  pg::exec(tx, kGiveBack, std::string(reserved.org_id),
           std::string(model::mode_name(reserved.mode)), std::string(reserved.amount_usd),
           std::string(reserved.created_at));
}

model::Status set_overrides(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                            const LimitOverrides& overrides) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kSetOverrides, std::string(org_id), std::string(model::mode_name(mode)),
             overrides.auto_approval_usd, overrides.per_payout_usd, overrides.daily_usd,
             overrides.monthly_usd);
    return model::ok_status();
  });
}

}  // namespace payrail::infra::repositories::spend
