#include "infra/repositories/ledger.h"

#include <array>
#include <stdexcept>

#include "infra/pg/pool.h"
#include "schemas/model/money.h"

namespace payrail::infra::repositories::ledger {
namespace {

struct MovementSpec {
  Movement movement;
  const char* kind;
  const char* debit_account;   // loses the amount
  const char* credit_account;  // gains the amount
};

constexpr std::array kMovements{
    MovementSpec{Movement::sandbox_funding, "sandbox_funding", "sandbox_funding", "available"},
    MovementSpec{Movement::hold, "hold", "available", "held"},
    MovementSpec{Movement::release, "release", "held", "available"},
    MovementSpec{Movement::refund, "refund", "held", "available"},
    MovementSpec{Movement::settle, "settle", "held", "payouts_sent"},
    MovementSpec{Movement::settle_fiat, "settle", "held", "fiat_payouts_sent"},
    MovementSpec{Movement::credit, "credit", "collections_received", "available"},
};

const MovementSpec& spec_of(Movement movement) {
  for (const auto& spec : kMovements) {
    if (spec.movement == movement) return spec;
  }
  throw std::logic_error("unknown ledger movement");
}

// The entry and its two postings in one round trip; nothing when the entry exists already (the
// movement was applied). The postings' balance is checked at commit (a deferred trigger).
constexpr pg::Statement kInsertEntry{"ledger_insert_entry", R"sql(
WITH entry AS (
  INSERT INTO journal_entries (org_id, mode, asset, kind, resource_id)
  VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id)
INSERT INTO journal_postings (entry_id, account, amount)
SELECT entry.id, posting.account, posting.amount FROM entry,
  (VALUES ($6::text, -($8::numeric)), ($7::text, $8::numeric)) AS posting (account, amount)
RETURNING entry_id)sql"};

// A hold is the one movement that can find the balance short: it is applied at once, entry,
// postings and balance in one round trip, and the guard turns a short balance into a clean
// "insufficient" answer instead of a constraint error. The balance is changed only when this
// statement wrote the entry (a hold applied before changes nothing). Returns whether the entry
// was written and whether the balance was.
constexpr pg::Statement kHold{"ledger_hold", R"sql(
WITH entry AS (
  INSERT INTO journal_entries (org_id, mode, asset, kind, resource_id)
  VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id),
postings AS (
  INSERT INTO journal_postings (entry_id, account, amount)
  SELECT entry.id, posting.account, posting.amount FROM entry,
    (VALUES ($6::text, -($8::numeric)), ($7::text, $8::numeric)) AS posting (account, amount)),
held AS (
  UPDATE balances SET available = available + $9::numeric, held = held + $10::numeric,
                      updated_at = now()
  WHERE org_id = $1 AND mode = $2 AND asset = $3
    AND available + $9::numeric >= 0 AND held + $10::numeric >= 0
    AND EXISTS (SELECT 1 FROM entry)
  RETURNING 1)
SELECT EXISTS (SELECT 1 FROM entry), EXISTS (SELECT 1 FROM held))sql"};

// Every other movement only adds to `available` or takes from `held` what a hold put there, so
// it is deferred to the end of the transaction (pg::defer_row) and the transaction's changes are
// applied together: one row per balance, locked in key order (so two batches touching the same
// organizations cannot deadlock on them) just before the commit. A worker's batch therefore holds
// an organization's balance row only for its commit, not while it applies the rest of the batch,
// and creates of that organization do not queue behind it. The CHECK constraints on balances stay
// the last line of defence: a change that would make one negative fails the transaction. The
// statement returns the balances it found no row for, which fails the transaction too (a movement
// is never recorded in the journal without its balance).
constexpr pg::Statement kApplyBalanceChanges{"ledger_apply_balance_changes", R"sql(
WITH change AS (
  SELECT org_id, mode, asset, sum(available) AS available, sum(held) AS held
  FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::numeric[])
       AS c (org_id, mode, asset, available, held)
  GROUP BY org_id, mode, asset),
locked AS (
  SELECT b.org_id, b.mode, b.asset FROM balances b JOIN change USING (org_id, mode, asset)
  ORDER BY b.org_id COLLATE "C", b.mode COLLATE "C", b.asset COLLATE "C" FOR UPDATE OF b),
updated AS (
  UPDATE balances b SET available = b.available + change.available,
                        held = b.held + change.held, updated_at = now()
  FROM change JOIN locked USING (org_id, mode, asset)
  WHERE b.org_id = change.org_id AND b.mode = change.mode AND b.asset = change.asset
  RETURNING b.org_id, b.mode, b.asset)
SELECT org_id, mode, asset FROM change
EXCEPT SELECT org_id, mode, asset FROM updated)sql"};

constexpr pg::Statement kOpenAccounts{"ledger_open_accounts", R"sql(
INSERT INTO balances (org_id, mode, asset)
SELECT $1, m.mode, a.asset FROM (VALUES ('test'), ('live')) AS m (mode),
                                (VALUES ('USDC'), ('USDT'), ('ETH')) AS a (asset))sql"};

constexpr pg::Statement kBalances{"ledger_balances", R"sql(
SELECT asset, available::text, held::text FROM balances WHERE org_id = $1 AND mode = $2
ORDER BY CASE asset WHEN 'USDC' THEN 1 WHEN 'USDT' THEN 2 ELSE 3 END)sql"};

// Balances are shown at the asset's precision ("1000000.000000" for USDC).
std::string at_precision(const std::string& asset, const std::string& value) {
  const auto parsed = model::parse_decimal(value);
  const auto parsed_asset = model::parse_asset(asset);
  if (!parsed || !parsed_asset) return value;
  return model::format_decimal(model::rescale(*parsed, model::asset_precision(*parsed_asset)));
}

std::string delta(const MovementSpec& spec, std::string_view account, const std::string& amount) {
  if (account == spec.credit_account) return amount;
  if (account == spec.debit_account) return "-" + amount;
  return "0";
}

// What the transaction deferred so far (its transition log, its events) is written first, so
// that the balance row is held for the fewest statements before the commit; its lock is held from
// the hold until the caller's transaction ends.
Applied apply_hold(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                   std::string_view asset, const MovementSpec& spec,
                   const std::optional<std::string>& resource, const std::string& amount) {
  pg::flush_deferred_early(tx);
  const auto row =
      pg::exec(tx, kHold, std::string(org_id), std::string(model::mode_name(mode)),
               std::string(asset), std::string(spec.kind), resource,
               std::string(spec.debit_account), std::string(spec.credit_account), amount,
               delta(spec, "available", amount), delta(spec, "held", amount))[0];
  if (!row[0].as<bool>()) return Applied::already_applied;
  return row[1].as<bool>() ? Applied::applied : Applied::insufficient_balance;
}

}  // namespace

std::optional<Movement> movement_of(model::MoneyEffect effect, Movement settle_as) {
  switch (effect) {
    case model::MoneyEffect::none:
      return std::nullopt;
    case model::MoneyEffect::hold:
      return Movement::hold;
    case model::MoneyEffect::release:
      return Movement::release;
    case model::MoneyEffect::refund:
      return Movement::refund;
    case model::MoneyEffect::settle:
      return settle_as;
  }
  return std::nullopt;
}

Applied apply(pqxx::work& tx, std::string_view org_id, model::Mode mode, std::string_view asset,
              Movement movement, std::optional<std::string_view> resource_id,
              const std::string& amount) {
  const auto& spec = spec_of(movement);
  const std::optional<std::string> resource =
      resource_id ? std::optional<std::string>(std::string(*resource_id)) : std::nullopt;
  if (movement == Movement::hold)
    return apply_hold(tx, org_id, mode, asset, spec, resource, amount);
  // The entry first: the balance row is the one every payout of the organization contends for.
  const auto entry =
      pg::exec(tx, kInsertEntry, std::string(org_id), std::string(model::mode_name(mode)),
               std::string(asset), std::string(spec.kind), resource,
               std::string(spec.debit_account), std::string(spec.credit_account), amount);
  if (entry.empty()) return Applied::already_applied;
  pg::defer_row(tx, kApplyBalanceChanges, pg::LockOrder::balances,
                {std::string(org_id), std::string(model::mode_name(mode)), std::string(asset),
                 delta(spec, "available", amount), delta(spec, "held", amount)});
  return Applied::applied;
}

std::string balance_key(std::string_view org_id, model::Mode mode, std::string_view asset) {
  // The unit separator sorts below every character of an id, a mode or an asset: the keys sort
  // as the (org_id, mode, asset) tuples do under the "C" collation.
  constexpr char kSeparator = '\x1f';
  return std::string(org_id) + kSeparator + std::string(model::mode_name(mode)) + kSeparator +
         std::string(asset);
}

void open_accounts(pqxx::work& tx, std::string_view org_id) {
  pg::exec(tx, kOpenAccounts, std::string(org_id));
  const std::array<std::pair<const char*, const char*>, 3> sandbox{
      {{"USDC", "1000000"}, {"USDT", "1000000"}, {"ETH", "1000"}}};
  for (const auto& [asset, amount] : sandbox) {
    apply(tx, org_id, model::Mode::test, asset, Movement::sandbox_funding, std::nullopt, amount);
  }
}

model::Result<std::vector<BalanceRow>> balances(pg::Pool& pool, std::string_view org_id,
                                                model::Mode mode) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<BalanceRow>> {
    std::vector<BalanceRow> rows;
    for (const auto& row :
         pg::exec(tx, kBalances, std::string(org_id), std::string(model::mode_name(mode)))) {
      const auto asset = row[0].as<std::string>();
      rows.push_back({asset, at_precision(asset, row[1].as<std::string>()),
                      at_precision(asset, row[2].as<std::string>())});
    }
    return rows;
  });
}

}  // namespace payrail::infra::repositories::ledger
