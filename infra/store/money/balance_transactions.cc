#include "infra/store/money/balance_transactions.h"

#include <stdexcept>

#include "infra/store/sql/sql.h"
#include "schemas/model/money/money.h"

namespace payrail::infra::store::balance_transactions {
namespace {

// $1 org_id, $2 mode, $3 limit + 1, $4 starting_after (entry id), $5 created_gte,
// $6 created_lte, $7 asset, $8 kind. `page` is the entries listed; `effect` is every entry from
// the page's oldest on (all assets, all kinds: the filters choose what is listed, not what
// counts), with its signed effect on each balance account; `later` sums, per asset, the effects
// of the entries after each one, which the current balance row less gives the balance after it.
// The columns read_row() reads, by name.
constexpr auto kColumns = sql::concat(
    "page.id, page.kind, page.resource_id, page.asset, later.amount::text AS amount, "
    "later.available_change::text AS available_change, later.held_change::text AS held_change, "
    "(b.available - later.available_later)::text AS available_after, (b.held - "
    "later.held_later)::text AS held_after, ",
    sql::timestamp("page.created_at", "created_at"));
constexpr auto kListSql = sql::concat(R"sql(
WITH page AS MATERIALIZED (
  SELECT id, kind, resource_id, asset, created_at FROM journal_entries
  WHERE org_id = $1 AND mode = $2
    AND ($4::bigint IS NULL OR id < $4::bigint)
    AND ($5::timestamptz IS NULL OR created_at >= $5::timestamptz)
    AND ($6::timestamptz IS NULL OR created_at <= $6::timestamptz)
    AND ($7::text IS NULL OR asset = $7::text)
    AND ($8::text IS NULL OR kind = $8::text)
  ORDER BY id DESC LIMIT $3),
effect AS (
  SELECT e.id, e.asset, max(abs(p.amount)) AS amount,
         coalesce(sum(p.amount) FILTER (WHERE p.account = 'available'), 0) AS available_change,
         coalesce(sum(p.amount) FILTER (WHERE p.account = 'held'), 0) AS held_change
  FROM journal_entries e JOIN journal_postings p ON p.entry_id = e.id
  WHERE e.org_id = $1 AND e.mode = $2 AND e.id >= (SELECT min(id) FROM page)
  GROUP BY e.id, e.asset),
later AS (
  SELECT id, amount, available_change, held_change,
         coalesce(sum(available_change) OVER newer, 0) AS available_later,
         coalesce(sum(held_change) OVER newer, 0) AS held_later
  FROM effect
  WINDOW newer AS (PARTITION BY asset ORDER BY id DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
SELECT )sql", kColumns, R"sql(
FROM page JOIN later USING (id)
JOIN balances b ON b.org_id = $1 AND b.mode = $2 AND b.asset = page.asset
ORDER BY page.id DESC)sql");
constexpr pg::Statement kList{"balance_transactions_list", kListSql.c_str(), pg::Plan::custom};

constexpr pg::Statement kEntryExists{
    "balance_transactions_entry_exists",
    "SELECT 1 FROM journal_entries WHERE id = $1 AND org_id = $2 AND mode = $3"};

// NUMERIC text at the asset's precision, keeping its sign ("-10.000000" for USDC).
std::string at_precision(const std::string& asset, const std::string& value) {
  const bool negative = value.starts_with('-');
  const auto parsed = model::parse_decimal(negative ? value.substr(1) : value);
  const auto parsed_asset = model::parse_asset(asset);
  // The balances table admits three assets and the journal stores amounts at their precision.
  if (!parsed || !parsed_asset) throw std::logic_error("journal amount outside the model");
  const auto text =
      model::format_decimal(model::rescale(*parsed, model::asset_precision(*parsed_asset)));
  return negative ? "-" + text : text;
}

BalanceTransactionRow read_row(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval { return sql::column(kColumns, name); };
  const auto asset = row[at("asset")].as<std::string>();
  return BalanceTransactionRow{row[at("id")].as<std::int64_t>(),
                               row[at("kind")].as<std::string>(),
                               optional_text(row[at("resource_id")]),
                               asset,
                               at_precision(asset, row[at("amount")].as<std::string>()),
                               at_precision(asset, row[at("available_change")].as<std::string>()),
                               at_precision(asset, row[at("held_change")].as<std::string>()),
                               at_precision(asset, row[at("available_after")].as<std::string>()),
                               at_precision(asset, row[at("held_after")].as<std::string>()),
                               row[at("created_at")].as<std::string>()};
}

}  // namespace

model::Result<Page<BalanceTransactionRow>> list(pg::Pool& pool, std::string_view org_id,
                                                model::Mode mode, const Filters& filters,
                                                const ListQuery& query) {
  std::optional<std::int64_t> starting_after;
  if (query.starting_after) starting_after = std::stoll(*query.starting_after);
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<BalanceTransactionRow>> {
    std::vector<BalanceTransactionRow> rows;
    for (const auto& row : pg::exec(
             tx, kList, std::string(org_id), std::string(model::mode_name(mode)), query.limit + 1,
             starting_after, query.created_gte, query.created_lte, filters.asset, filters.kind)) {
      rows.push_back(read_row(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

model::Result<bool> entry_exists(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                 std::int64_t entry_id) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<bool> {
    return !pg::exec(tx, kEntryExists, entry_id, std::string(org_id),
                     std::string(model::mode_name(mode)))
                .empty();
  });
}

}  // namespace payrail::infra::store::balance_transactions
