// GET /v1/balances: one balance per asset for the key's organization and mode.
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/store/money/ledger.h"

namespace payrail::api {
namespace {

namespace ledger = infra::store::ledger;

model::Result<HttpResponse> list_balances(RequestContext& context) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto rows = ledger::balances(*context.services->db, principal.org_id, principal.mode);
  if (!rows.ok()) return rows.error();
  infra::store::Page<ledger::BalanceRow> page{*rows, false};
  const auto mode = std::string(model::mode_name(principal.mode));
  return list_response<ledger::BalanceRow>(
      page,
      [&](model::json::Writer& writer, const ledger::BalanceRow& balance) {
        using namespace model::json;
        writer.StartObject();
        write_key_string(writer, "object", "balance");
        write_key_string(writer, "asset", balance.asset);
        write_key_string(writer, "mode", mode);
        write_key_string(writer, "available", balance.available);
        write_key_string(writer, "held", balance.held);
        writer.EndObject();
      },
      [](const ledger::BalanceRow& balance) { return balance.asset; });
}

}  // namespace

void register_balance_routes(Router& router) {
  router.add({"GET", "/v1/balances", Access::api_key, "balances:read", sync(list_balances)});
}

}  // namespace payrail::api
