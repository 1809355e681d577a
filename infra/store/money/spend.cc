#include "infra/store/sql/deferred_writes.h"
#include "infra/store/money/spend.h"

#include <algorithm>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/plumbing/pg/sql_array.h"

namespace payrail::infra::store::spend {
namespace {

// The override columns apply_overrides() reads, by name (sql::column).
constexpr auto kOverrideColumns = override_columns("organization_limits");

constexpr auto kOverridesSql = sql::concat(
    "SELECT ", kOverrideColumns, " FROM organization_limits WHERE org_id = $1 AND mode = $2");
constexpr pg::Statement kOverrides{"spend_overrides", kOverridesSql.c_str()};

// The scope of each row of kOverridesOf, its overrides after it.
constexpr sql::Text kScopeColumns = "organization_limits.org_id, organization_limits.mode";

// The scopes arrive without duplicates (effective_limits). Each is read by the primary key: the
// LATERAL subquery with OFFSET 0 is not merged into a join, whose generic plan (ten rows expected
// from any array) hashed the scopes and read the whole table for every batch the screening worker
// decides, as authentication did (api_keys.cc).
constexpr auto kOverridesOfSql = sql::concat(
    "SELECT ", kScopeColumns, ", ", kOverrideColumns,
    " FROM unnest($1::text[], $2::text[]) AS scope (org_id, mode) CROSS JOIN LATERAL (SELECT * "
    "FROM organization_limits WHERE org_id = scope.org_id AND mode = scope.mode OFFSET 0) AS "
    "organization_limits");
constexpr pg::Statement kOverridesOf{"spend_overrides_of", kOverridesOfSql.c_str()};

// The column reserve() reads: a period whose counter took the amount.
constexpr sql::Text kReservedColumns = "c.period";

// Both periods in one round trip, day first (the order every reservation locks them in);
// returns the periods whose counter took the amount: an existing counter only while it stays
// within its limit, a new one always (reserve() checks the amount alone against the limit).
constexpr auto kReserveSql = sql::concat(R"sql(
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
RETURNING )sql",
                                         kReservedColumns);
constexpr pg::Statement kReserve{"spend_reserve", kReserveSql.c_str()};

// In the first pass of a group of creates (store::grouped) the reservations are deferred to the end
// of the transaction and written together: one sum per organization and mode, each counter
// locked once and in key order, after the balances (store::LockOrder). A counter takes the sum only
// while it stays within the smallest limit its rows carry; the statement returns each period that
// did not, which fails the transaction. The group is then applied again request by request
// (store::GroupedWrites), each reservation at once, and only the one that does not fit is refused.
// When the sum fits, each reservation alone would have: the amounts are positive.
constexpr pg::Statement kReserveDeferred{"spend_reserve_deferred", R"sql(
WITH reserved AS (
  SELECT r.org_id, r.mode, sum(r.amount_usd) AS amount_usd, min(r.daily_usd) AS daily_usd,
         min(r.monthly_usd) AS monthly_usd
  FROM unnest($1::text[], $2::text[], $3::numeric[], $4::numeric[], $5::numeric[])
       AS r (org_id, mode, amount_usd, daily_usd, monthly_usd)
  GROUP BY r.org_id, r.mode),
wanted AS (
  SELECT reserved.org_id, reserved.mode, period.name AS period, period.start AS period_start,
         reserved.amount_usd,
         CASE period.name WHEN 'day' THEN reserved.daily_usd ELSE reserved.monthly_usd END
           AS limit_usd
  FROM reserved,
       (VALUES ('day', (now() AT TIME ZONE 'UTC')::date),
               ('month', date_trunc('month', now() AT TIME ZONE 'UTC')::date))
       AS period (name, start)),
taken AS (
  INSERT INTO spend_counters AS c (org_id, mode, period, period_start, amount_usd)
  SELECT org_id, mode, period, period_start, amount_usd FROM wanted WHERE amount_usd <= limit_usd
  ORDER BY org_id COLLATE "C", mode COLLATE "C", period COLLATE "C"
  ON CONFLICT (org_id, mode, period, period_start)
  DO UPDATE SET amount_usd = c.amount_usd + EXCLUDED.amount_usd
  WHERE c.amount_usd + EXCLUDED.amount_usd <= (
    SELECT w.limit_usd FROM wanted w
    WHERE w.org_id = EXCLUDED.org_id AND w.mode = EXCLUDED.mode AND w.period = EXCLUDED.period)
  RETURNING c.org_id, c.mode, c.period)
SELECT 'spend reservation over its ' || period || ' limit' FROM wanted
WHERE (org_id, mode, period) NOT IN (SELECT org_id, mode, period FROM taken))sql"};

// A give-back only lowers counters, so it is deferred to the end of the transaction
// (store::defer_row) and the transaction's give-backs are written together, each counter locked once
// and in key order. greatest(0, x - a - b) = greatest(0, greatest(0, x - a) - b) for a, b >= 0:
// the sum gives back what one at a time would.
constexpr pg::Statement kGiveBack{"spend_give_back", R"sql(
WITH given AS (
  SELECT g.org_id, g.mode, g.amount_usd, g.created_at AT TIME ZONE 'UTC' AS created_utc
  FROM unnest($1::text[], $2::text[], $3::numeric[], $4::timestamptz[])
       AS g (org_id, mode, amount_usd, created_at)),
back AS (
  SELECT org_id, mode, period, period_start, sum(amount_usd) AS amount_usd FROM (
    SELECT org_id, mode, 'day' AS period, created_utc::date AS period_start, amount_usd
    FROM given
    UNION ALL
    SELECT org_id, mode, 'month', date_trunc('month', created_utc)::date, amount_usd FROM given)
    AS each_period
  GROUP BY org_id, mode, period, period_start),
locked AS (
  SELECT c.org_id, c.mode, c.period, c.period_start
  FROM spend_counters c JOIN back USING (org_id, mode, period, period_start)
  ORDER BY c.org_id, c.mode, c.period, c.period_start FOR UPDATE OF c)
UPDATE spend_counters c SET amount_usd = greatest(0, c.amount_usd - back.amount_usd)
FROM back JOIN locked USING (org_id, mode, period, period_start)
WHERE c.org_id = back.org_id AND c.mode = back.mode AND c.period = back.period
  AND c.period_start = back.period_start)sql"};

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

// The four overrides of `row`, which selects kOverrideColumns from column `first` on.
void apply_overrides(const pqxx::row& row, int first, model::PayoutLimits& limits) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kOverrideColumns, name);
  };
  apply_override(row[first + at("auto_approval_usd")], limits.auto_approval_usd);
  apply_override(row[first + at("per_payout_usd")], limits.per_payout_usd);
  apply_override(row[first + at("daily_usd")], limits.daily_usd);
  apply_override(row[first + at("monthly_usd")], limits.monthly_usd);
}

model::Error over_limit(const char* period, const model::Decimal& limit) {
  return model::Error::make(model::ErrorCode::limit_exceeded,
                            std::string("This payout would exceed the organization's ") +
                                (std::string(period) == "day" ? "daily" : "monthly") +
                                " limit of " + model::format_decimal(limit) + " USD.");
}

}  // namespace

model::PayoutLimits limits_with_overrides(const pqxx::row& row, int first, model::Mode mode) {
  auto limits = model::default_payout_limits(mode);
  apply_overrides(row, first, limits);
  return limits;
}


model::PayoutLimits effective_limits(pqxx::work& tx, std::string_view org_id, model::Mode mode) {
  auto limits = model::default_payout_limits(mode);
  const auto rows =
      pg::exec(tx, kOverrides, std::string(org_id), std::string(model::mode_name(mode)));
  if (!rows.empty()) apply_overrides(rows[0], 0, limits);
  return limits;
}

LimitsByScope effective_limits(pqxx::transaction_base& tx, const std::vector<Scope>& scopes) {
  LimitsByScope limits;
  std::vector<std::string> org_ids;
  std::vector<std::string> modes;
  for (const auto& scope : scopes) {
    if (!limits.emplace(scope, model::default_payout_limits(scope.second)).second) continue;
    org_ids.push_back(scope.first);
    modes.emplace_back(model::mode_name(scope.second));
  }
  if (org_ids.empty()) return limits;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kScopeColumns, name);
  };
  constexpr int overrides_first = sql::column_count(kScopeColumns);
  for (const auto& row : pg::exec(tx, kOverridesOf, pg::sql_array(org_ids), pg::sql_array(modes))) {
    const auto mode = model::parse_mode(row[at("mode")].as<std::string>());
    const auto found =
        limits.find({row[at("org_id")].as<std::string>(), mode.value_or(model::Mode::test)});
    if (mode && found != limits.end()) apply_overrides(row, overrides_first, found->second);
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
  // The amount alone within each limit first: a new counter row is created at the amount
  // unchecked (on any error the caller rolls back).
  for (const auto& [period, limit] : periods) {
    if (!amount || model::compare(*amount, *limit) > 0) return over_limit(period, *limit);
  }
  const auto daily = model::format_decimal(limits.daily_usd);
  const auto monthly = model::format_decimal(limits.monthly_usd);
  const std::string mode_text(model::mode_name(mode));
  if (store::grouped(tx)) {
    store::defer_row(tx, kReserveDeferred, store::LockOrder::spend_counters,
                  {std::string(org_id), mode_text, amount_usd, daily, monthly});
    return model::ok_status();
  }
  // A period fits when its counter took the amount.
  std::vector<std::string> fitted;
  for (const auto& row :
       pg::exec(tx, kReserve, std::string(org_id), mode_text, amount_usd, daily, monthly)) {
    fitted.push_back(row[sql::column(kReservedColumns, "period")].as<std::string>());
  }
  for (const auto& [period, limit] : periods) {
    if (std::find(fitted.begin(), fitted.end(), period) == fitted.end()) {
      return over_limit(period, *limit);
    }
  }
  return model::ok_status();
}

void give_back(pqxx::work& tx, const Reserved& reserved) {
  store::defer_row(tx, kGiveBack, store::LockOrder::spend_counters,
                {std::string(reserved.org_id), std::string(model::mode_name(reserved.mode)),
                 std::string(reserved.amount_usd), std::string(reserved.created_at)});
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

}  // namespace payrail::infra::store::spend
