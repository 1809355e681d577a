// GET /v1/balance-transactions: every movement of the organization's balance in the key's mode,
// read from the journal (docs/api.md "Balance transactions").
#include "infra/store/money/balance_transactions.h"

#include <algorithm>
#include <charconv>

#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "schemas/model/money/money.h"

namespace payrail::api {
namespace {

namespace transactions = infra::store::balance_transactions;

constexpr std::string_view kIdPrefix = "btx_";
constexpr std::size_t kEntryIdDigitsMax = 18;  // below 2^63
constexpr std::array<std::string_view, 6> kTypes{"sandbox_funding", "hold",   "release",
                                                 "refund",          "settle", "credit"};

std::string public_id(std::int64_t entry_id) {
  return std::string(kIdPrefix) + std::to_string(entry_id);
}

// "btx_<entry id>" with no sign, no leading zero and at most 18 digits.
std::optional<std::int64_t> entry_id_of(std::string_view id) {
  if (!id.starts_with(kIdPrefix)) return std::nullopt;
  const auto digits = id.substr(kIdPrefix.size());
  if (digits.empty() || digits.size() > kEntryIdDigitsMax || digits.front() == '0') {
    return std::nullopt;
  }
  std::int64_t entry_id = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), entry_id);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return entry_id;
}

// The object a movement belongs to, by its id's prefix (ids carry the contract's prefixes).
std::string_view resource_object(std::string_view resource_id) {
  if (resource_id.starts_with("po_")) return "payout";
  if (resource_id.starts_with("fpo_")) return "fiat_payout";
  if (resource_id.starts_with("col_")) return "collection";
  return "unknown";
}

// The shared parser checks limit, the created range and unknown parameters; the cursor names a
// journal entry, which it does not know, so it is checked here.
model::Result<infra::store::ListQuery> read_query(const RequestContext& context) {
  auto cursor = context.request.query_value("starting_after");
  if (!cursor.ok()) return cursor.error();
  RequestContext without_cursor = context;
  auto& parameters = without_cursor.request.query;
  std::erase_if(parameters,
                [](const auto& parameter) { return parameter.first == "starting_after"; });
  auto query = parse_list_query(without_cursor, {.listable = infra::store::Listable::payouts,
                                                 .id_prefix = kIdPrefix,
                                                 .created_range = true,
                                                 .filters = {"asset", "type"}});
  if (!query.ok() || !*cursor) return query;
  const auto& principal = *context.api_key;
  const auto entry_id = entry_id_of(**cursor);
  auto exists = entry_id ? transactions::entry_exists(*context.services->db, principal.org_id,
                                                      principal.mode, *entry_id)
                         : model::Result<bool>(false);
  if (!exists.ok()) return exists.error();
  if (!*exists) {
    return model::bad_request("starting_after does not name an item of this list.",
                              "starting_after");
  }
  query->starting_after = std::to_string(*entry_id);
  return query;
}

model::Result<transactions::Filters> read_filters(const RequestContext& context) {
  auto asset = context.request.query_value("asset");
  if (!asset.ok()) return asset.error();
  if (*asset && !model::parse_asset(**asset)) {
    return model::bad_request("asset must be USDC, USDT or ETH.", "asset");
  }
  auto type = context.request.query_value("type");
  if (!type.ok()) return type.error();
  if (*type && std::find(kTypes.begin(), kTypes.end(), **type) == kTypes.end()) {
    return model::bad_request(
        "type must be one of sandbox_funding, hold, release, refund, settle, credit.", "type");
  }
  return transactions::Filters{*asset, *type};
}

void write_transaction(model::json::Writer& writer, const transactions::BalanceTransactionRow& row,
                       std::string_view mode) {
  using namespace model::json;
  writer.StartObject();
  write_key_string(writer, "id", public_id(row.entry_id));
  write_key_string(writer, "object", "balance_transaction");
  write_key_string(writer, "type", row.kind);
  write_key_string(writer, "mode", mode);
  write_key_string(writer, "asset", row.asset);
  write_key_string(writer, "amount", row.amount);
  write_key_string(writer, "available_change", row.available_change);
  write_key_string(writer, "held_change", row.held_change);
  write_key_string(writer, "available_after", row.available_after);
  write_key_string(writer, "held_after", row.held_after);
  write_key(writer, "resource");
  if (row.resource_id) {
    writer.StartObject();
    write_key_string(writer, "object", resource_object(*row.resource_id));
    write_key_string(writer, "id", *row.resource_id);
    writer.EndObject();
  } else {
    writer.Null();
  }
  write_key_string(writer, "created_at", row.created_at);
  writer.EndObject();
}

model::Result<HttpResponse> list_balance_transactions(RequestContext& context) {
  auto query = read_query(context);
  if (!query.ok()) return query.error();
  auto filters = read_filters(context);
  if (!filters.ok()) return filters.error();
  const auto& principal = *context.api_key;
  auto page =
      transactions::list(*context.services->db, principal.org_id, principal.mode, *filters, *query);
  if (!page.ok()) return page.error();
  const auto mode = model::mode_name(principal.mode);
  return list_response<transactions::BalanceTransactionRow>(
      *page,
      [mode](model::json::Writer& writer, const auto& row) {
        write_transaction(writer, row, mode);
      },
      [](const auto& row) { return public_id(row.entry_id); });
}

}  // namespace

void register_balance_transaction_routes(Router& router) {
  router.add({"GET", "/v1/balance-transactions", Access::api_key, "balances:read",
              sync(list_balance_transactions)});
}

}  // namespace payrail::api
