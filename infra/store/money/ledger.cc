#include "infra/store/sql/deferred_writes.h"
#include "infra/store/money/ledger.h"

#include <array>
#include <stdexcept>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/text.h"
#include "schemas/model/money/money.h"

namespace payrail::infra::store::ledger {
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

// The columns apply_hold() reads, by name (sql::column): whether kHold wrote the entry,
// and whether it changed the balance.
constexpr sql::Text kHoldColumns =
    "EXISTS (SELECT 1 FROM entry) AS entry_written, EXISTS (SELECT 1 FROM held) AS balance_changed";

// A hold is the one movement that can find the balance short: it is applied at once, entry,
// postings and balance in one round trip, and the guard turns a short balance into a clean
// "insufficient" answer instead of a constraint error. The balance is changed only when this
// statement wrote the entry (a hold applied before changes nothing). Returns whether the entry
// was written and whether the balance was. In the first pass of a group of creates
// (store::grouped) the holds are deferred with the other movements instead: a balance that cannot
// take the group's holds together fails the flush on its CHECK constraint, and each create is
// then applied again in a savepoint of its own, where its hold comes here.
constexpr auto kHoldSql = sql::concat(R"sql(
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
SELECT )sql",
                                      kHoldColumns);
constexpr pg::Statement kHold{"ledger_hold", kHoldSql.c_str()};

// Every other movement only adds to `available` or takes from `held` what a hold put there, so
// it is deferred to the end of the transaction (store::defer_row), its journal entry with it, and
// the transaction's movements are applied together by one statement: the entries (ids taken from
// their sequence first, so that each written entry is matched to its movement), their postings,
// and one change per balance, whose rows are locked in key order (so two batches touching the
// same organizations cannot deadlock on them) just before the commit. A worker's batch therefore
// holds an organization's balance row only for its commit, not while it applies the rest of the
// batch, and creates of that organization do not queue behind it. The CHECK constraints on
// balances stay the last line of defence: a change that would make one negative fails the
// transaction. The statement returns a row for a balance it found no row for, and for a movement
// whose entry exists already (applied in an earlier transaction: a caller guarded by a status
// never does this), and each fails the transaction (refuse_movement): a movement is never
// recorded without its balance, nor applied twice.
constexpr pg::Statement kApplyMovements{"ledger_apply_movements", R"sql(
WITH movement AS MATERIALIZED (
  SELECT nextval(pg_get_serial_sequence('journal_entries', 'id')) AS id, m.*
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
              $7::text[], $8::numeric[], $9::numeric[], $10::numeric[])
       AS m (org_id, mode, asset, kind, resource_id, debit_account, credit_account, amount,
             available, held)),
entry AS (
  INSERT INTO journal_entries (id, org_id, mode, asset, kind, resource_id) OVERRIDING SYSTEM VALUE
  SELECT id, org_id, mode, asset, kind, resource_id FROM movement ORDER BY id
  ON CONFLICT DO NOTHING RETURNING id),
applied AS (SELECT movement.* FROM movement JOIN entry USING (id)),
postings AS (
  INSERT INTO journal_postings (entry_id, account, amount)
  SELECT id, debit_account, -amount FROM applied
  UNION ALL SELECT id, credit_account, amount FROM applied),
change AS (
  SELECT org_id, mode, asset, sum(available) AS available, sum(held) AS held
  FROM applied GROUP BY org_id, mode, asset),
locked AS (
  SELECT b.org_id, b.mode, b.asset FROM balances b JOIN change USING (org_id, mode, asset)
  ORDER BY b.org_id COLLATE "C", b.mode COLLATE "C", b.asset COLLATE "C" FOR UPDATE OF b),
updated AS (
  UPDATE balances b SET available = b.available + change.available,
                        held = b.held + change.held, updated_at = now()
  FROM change JOIN locked USING (org_id, mode, asset)
  WHERE b.org_id = change.org_id AND b.mode = change.mode AND b.asset = change.asset
  RETURNING b.org_id, b.mode, b.asset)
SELECT 'ledger movement found no row for its balance' AS refusal FROM (
  SELECT org_id, mode, asset FROM change EXCEPT SELECT org_id, mode, asset FROM updated) missing
UNION ALL
SELECT 'ledger movement applied twice: ' || kind || ' of ' || coalesce(resource_id, 'no resource')
FROM movement WHERE id NOT IN (SELECT id FROM entry))sql"};

// Only ever called to fail the transaction: the name is looked up at run time.
void refuse_movement(const pqxx::row& row) {
  throw std::logic_error(row["refusal"].as<std::string>());
}

constexpr pg::Statement kOpenAccounts{"ledger_open_accounts", R"sql(
INSERT INTO balances (org_id, mode, asset)
SELECT $1, m.mode, a.asset FROM (VALUES ('test'), ('live')) AS m (mode),
                                (VALUES ('USDC'), ('USDT'), ('ETH')) AS a (asset))sql"};

// The columns balances() maps, by name.
constexpr sql::Text kBalanceColumns = "asset, available::text AS available, held::text AS held";
constexpr auto kBalancesSql = sql::concat(
    "SELECT ", kBalanceColumns,
    " FROM balances WHERE org_id = $1 AND mode = $2 ORDER BY CASE asset WHEN 'USDC' THEN 1 WHEN "
    "'USDT' THEN 2 ELSE 3 END");
constexpr pg::Statement kBalances{"ledger_balances", kBalancesSql.c_str()};

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
  store::flush_deferred_early(tx);
  const auto row =
      pg::exec(tx, kHold, std::string(org_id), std::string(model::mode_name(mode)),
               std::string(asset), std::string(spec.kind), resource,
               std::string(spec.debit_account), std::string(spec.credit_account), amount,
               delta(spec, "available", amount), delta(spec, "held", amount))[0];
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kHoldColumns, name);
  };
  if (!row[at("entry_written")].as<bool>()) return Applied::already_applied;
  return row[at("balance_changed")].as<bool>() ? Applied::applied : Applied::insufficient_balance;
}

// Whether the transaction deferred this movement, or another outcome of the same resource,
// already (what journal_entries_once and journal_entries_one_outcome refuse at the commit).
bool applied_in_this_transaction(const pqxx::work& tx, const MovementSpec& spec,
                                 const std::string& resource_id) {
  const auto is_outcome = [](std::string_view kind) {
    return kind == "release" || kind == "refund" || kind == "settle";
  };
  // A deferred row holds kApplyMovements' parameters: $4 the kind, $5 the resource.
  constexpr std::size_t kind_parameter = 3;
  constexpr std::size_t resource_parameter = 4;
  return store::any_deferred(tx, kApplyMovements, [&](const store::DeferredRow& row) {
    if (row[resource_parameter] != resource_id) return false;
    const auto& kind = *row[kind_parameter];
    return kind == spec.kind || (is_outcome(kind) && is_outcome(spec.kind));
  });
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
  if (movement == Movement::hold && !store::grouped(tx))
    return apply_hold(tx, org_id, mode, asset, spec, resource, amount);
  if (resource && applied_in_this_transaction(tx, spec, *resource)) return Applied::already_applied;
  store::defer_row(tx, kApplyMovements, store::LockOrder::balances,
                {std::string(org_id), std::string(model::mode_name(mode)), std::string(asset),
                 std::string(spec.kind), resource, std::string(spec.debit_account),
                 std::string(spec.credit_account), amount, delta(spec, "available", amount),
                 delta(spec, "held", amount)},
                refuse_movement);
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
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kBalanceColumns, name);
    };
    std::vector<BalanceRow> rows;
    for (const auto& row :
         pg::exec(tx, kBalances, std::string(org_id), std::string(model::mode_name(mode)))) {
      const auto asset = row[at("asset")].as<std::string>();
      rows.push_back({asset, at_precision(asset, row[at("available")].as<std::string>()),
                      at_precision(asset, row[at("held")].as<std::string>())});
    }
    return rows;
  });
}

}  // namespace payrail::infra::store::ledger
