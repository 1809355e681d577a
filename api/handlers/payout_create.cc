#include "api/handlers/payout_create.h"

#include <array>

#include "api/handlers/common.h"
#include "api/handlers/idempotent_create.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/adapters/chain/chain_adapter.h"
#include "infra/adapters/chain/evm_networks.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/ids.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/money/ledger.h"
#include "infra/store/outbox/relay.h"
#include "infra/store/payouts/payouts.h"
#include "infra/store/screening/screening_workers.h"
#include "schemas/model/money/limits.h"
#include "schemas/model/payouts/destination.h"

namespace payrail::api {
namespace {

namespace payouts = infra::store::payouts;
namespace idempotency = infra::store::idempotency;
using model::Error;
using model::ErrorCode;
using model::json::Field;
using model::json::Kind;

constexpr std::string_view kEndpoint = "POST /v1/payouts";

constexpr std::array kBodyFields{
    Field{"amount", Kind::string, true}, Field{"currency", Kind::string, true},
    Field{"rail", Kind::string, false}, Field{"destination", Kind::object, true},
    Field{"metadata", Kind::object, false}};
constexpr std::array kDestinationFields{Field{"network", Kind::string, true},
                                        Field{"address", Kind::string, true}};

model::Result<payouts::NewPayout> validate(const RequestContext& context) {
  auto key = idempotent_create::idempotency_key(context.request);
  if (!key.ok()) return key.error();
  auto body = parse_body(context, kBodyFields);
  if (!body.ok()) return body.error();
  const auto& destination = *model::json::member(*body, "destination");
  if (auto status = model::json::check_object(destination, kDestinationFields, "destination");
      !status.ok()) {
    return status.error();
  }
  if (auto rail = model::json::string_member(*body, "rail"); rail && *rail != "stablecoin") {
    return model::bad_request("rail must be stablecoin.", "rail");
  }
  const auto currency = *model::json::string_member(*body, "currency");
  const auto asset = model::parse_asset(currency);
  if (!asset) {
    return Error::make(ErrorCode::unsupported_destination, "currency must be USDC, USDT or ETH.",
                       "currency");
  }
  auto amount = model::parse_amount(*model::json::string_member(*body, "amount"),
                                    model::asset_precision(*asset), "amount");
  if (!amount.ok()) return amount.error();
  const auto mode = context.api_key->mode;
  auto checked = model::validate_destination(*model::json::string_member(destination, "network"),
                                             *model::json::string_member(destination, "address"),
                                             *asset, mode);
  if (!checked.ok()) return checked.error();
  const auto* metadata = model::json::member(*body, "metadata");
  if (metadata) {
    if (auto status = model::json::check_metadata(*metadata); !status.ok()) return status.error();
  }
  payouts::NewPayout request;
  request.scope = {context.api_key->org_id, mode, *key};
  request.endpoint = std::string(kEndpoint);
  request.request_hash =
      infra::crypto::sha256(std::string(kEndpoint) + "\n" + model::json::canonical(*body));
  request.amount = model::format_decimal(*amount);
  request.currency = std::string(currency);
  request.network = std::string(model::network_name(checked->network));
  request.address = checked->address;
  if (metadata) request.metadata_json = model::json::serialize(*metadata);
  request.amount_usd = model::format_decimal(model::value_in_usd(*amount, *asset));
  return request;
}

// Live mode moves real funds: it needs a verified business, a chain adapter that serves the
// network and the asset and carries the amount exactly, and loaded sanctions lists, all checked
// before anything is held.
model::Status check_live_mode(const RequestContext& context, const payouts::NewPayout& request) {
  if (context.api_key->mode != model::Mode::live) return model::ok_status();
  if (auto verified = check_live_create(*context.api_key, "Live payouts"); !verified.ok()) {
    return verified;
  }
  const auto& config = context.services->config;
  if (!infra::chain::live_adapter_configured(config.chain_adapter)) {
    return Error::make(
        ErrorCode::provider_unavailable,
        "Live stablecoin payouts are not available: no chain adapter is configured.");
  }
  if (const auto* networks = context.services->evm_networks) {
    if (auto served = infra::chain::check_live_payout(*networks, request.network, request.currency,
                                                      request.amount);
        !served.ok()) {
      return served;
    }
  }
  auto available = infra::store::screening_workers::sanctions_available(*context.services->db);
  if (!available.ok()) return available.error();
  if (!*available) {
    return Error::make(ErrorCode::sanctions_unavailable,
                       "Sanctions screening is temporarily unavailable; the payout was not sent.");
  }
  return model::ok_status();
}

// The answer for a payout once its screening is decided (or the wait ran out).
infra::store::creates::Answer decision_response(const payouts::PayoutRow& payout,
                                                const std::string& request_id) {
  if (payout.status == model::PayoutStatus::blocked) {
    auto error = Error::make(ErrorCode::screening_blocked,
                             "The destination was blocked by screening; no funds moved (payout " +
                                 payout.resource.id + ").");
    error.extra["payout_id"] = payout.resource.id;
    const auto response = error_response(error, request_id);
    return {response.status, response.body};
  }
  const int status = payout.status == model::PayoutStatus::pending_approval ? 202 : 201;
  return {status, model::payout_json(payout.resource)};
}

const idempotent_create::Resource kPayoutResource{
    .answer = [](pqxx::transaction_base& tx, const std::vector<idempotent_create::Wanted>& wanted) {
      return infra::store::creates::answer_rows(tx, wanted, payouts::find_many, decision_response);
    }};

}  // namespace

void create_payout(ContextPtr context, Responder responder) {
  auto request = validate(*context);
  if (!request.ok()) return responder.send_error(request.error());
  auto& services = *context->services;
  const idempotent_create::CreateRequest keyed{request->scope, request->endpoint,
                                               request->request_hash};
  if (context->api_key->mode == model::Mode::live) {
    // A retry with a used key gets the original answer even if live payouts became unavailable
    // since. (In test mode nothing is checked between here and the claim in create().)
    auto unused =
        idempotent_create::replay_used_key(*context, std::move(responder), kPayoutResource, keyed);
    if (!unused) return;
    responder = std::move(*unused);
    if (auto live = check_live_mode(*context, *request); !live.ok()) {
      return responder.send_error(live.error());
    }
  }
  request->id = infra::new_id("po_");
  idempotent_create::DecisionWait decision(context, kPayoutResource, request->scope, request->id);
  auto outcome = services.creates->write_one<payouts::CreateOutcome>(
      infra::store::ledger::balance_key(request->scope.org_id, request->scope.mode,
                                        request->currency),
      [&](pqxx::work& tx) { return payouts::create(tx, *request); },
      payouts::create_ahead(*request));
  if (!outcome.ok()) return responder.send_error(outcome.error());
  if (outcome->existing) {
    return idempotent_create::respond_existing(*context, std::move(responder), kPayoutResource,
                                               keyed, *outcome->existing);
  }
  services.relay->wake();
  decision.answer(std::move(responder));
}

}  // namespace payrail::api
