#include "api/handlers/payout_create.h"

#include <array>

#include "api/handlers/common.h"
#include "api/http/worker_pool.h"
#include "api/middleware/organization_gate.h"
#include "api/payout_decisions.h"
#include "api/services.h"
#include "infra/chain/chain_adapter.h"
#include "infra/crypto/crypto.h"
#include "infra/outbox/relay.h"
#include "infra/repositories/payouts.h"
#include "infra/repositories/screening_workers.h"
#include "schemas/model/destination.h"
#include "schemas/model/limits.h"

namespace payrail::api {
namespace {

namespace payouts = infra::repositories::payouts;
namespace idempotency = infra::repositories::idempotency;
using model::Error;
using model::ErrorCode;
using model::json::Field;
using model::json::Kind;

constexpr std::string_view kEndpoint = "POST /v1/payouts";
constexpr std::size_t kIdempotencyKeyLengthMax = 255;
constexpr int kAbandonedAfterExtraSeconds = 10;

constexpr std::array kBodyFields{
    Field{"amount", Kind::string, true}, Field{"currency", Kind::string, true},
    Field{"rail", Kind::string, false}, Field{"destination", Kind::object, true},
    Field{"metadata", Kind::object, false}};
constexpr std::array kDestinationFields{Field{"network", Kind::string, true},
                                        Field{"address", Kind::string, true}};

model::Result<std::string> idempotency_key(const HttpRequest& request) {
  const auto key = request.header("Idempotency-Key");
  if (!key) return model::bad_request("The Idempotency-Key header is required.", "Idempotency-Key");
  bool printable = !key->empty() && key->size() <= kIdempotencyKeyLengthMax;
  for (const char c : *key) printable = printable && c >= 0x20 && c <= 0x7E;
  if (!printable) {
    return model::bad_request("Idempotency-Key must be 1 to 255 printable ASCII characters.",
                              "Idempotency-Key");
  }
  return std::string(*key);
}

model::Result<payouts::NewPayout> validate(const RequestContext& context) {
  auto key = idempotency_key(context.request);
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

// Live mode moves real funds: it needs a verified business, a chain adapter and loaded sanctions
// lists, all checked before anything is held.
model::Status check_live_mode(const RequestContext& context) {
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
  auto available =
      infra::repositories::screening_workers::sanctions_available(*context.services->db);
  if (!available.ok()) return available.error();
  if (!*available) {
    return Error::make(ErrorCode::sanctions_unavailable,
                       "Sanctions screening is temporarily unavailable; the payout was not sent.");
  }
  return model::ok_status();
}

// The answer for a payout once its screening is decided (or the wait ran out).
HttpResponse decision_response(const payouts::PayoutRow& payout, const std::string& request_id) {
  if (payout.status == model::PayoutStatus::blocked) {
    auto error = Error::make(ErrorCode::screening_blocked,
                             "The destination was blocked by screening; no funds moved (payout " +
                                 payout.resource.id + ").");
    error.extra["payout_id"] = payout.resource.id;
    return error_response(error, request_id);
  }
  const int status = payout.status == model::PayoutStatus::pending_approval ? 202 : 201;
  return HttpResponse::json(status, model::payout_json(payout.resource));
}

// A replay is the original response: status, body and Request-Id (which an error body repeats).
HttpResponse replayed(HttpResponse response, const std::optional<std::string>& request_id) {
  response.headers.emplace_back("Idempotent-Replayed", "true");
  if (request_id) response.headers.emplace_back("Request-Id", *request_id);
  return response;
}

// Reads the payout, builds the answer and records it for replays, in one transaction.
model::Result<HttpResponse> answer_from_payout(Services& services, const idempotency::Scope& scope,
                                               const std::string& payout_id,
                                               const std::string& request_id) {
  return services.db->transact([&](pqxx::work& tx) -> model::Result<HttpResponse> {
    const auto payout = payouts::find(tx, scope.org_id, scope.mode, payout_id);
    if (!payout) return Error::make(ErrorCode::internal_error, "An internal error occurred.");
    auto response = decision_response(*payout, request_id);
    idempotency::complete(tx, scope, response.status, response.body, request_id);
    return response;
  });
}

void send(Responder& responder, model::Result<HttpResponse> response, bool replay) {
  if (!response.ok()) return responder.send_error(response.error());
  responder.send(replay ? replayed(std::move(response.value()), std::nullopt)
                        : std::move(response.value()));
}

// A second request with a key that was already used: the original answer, a conflict, or
// "still in progress".
void respond_existing(const RequestContext& context, Responder responder,
                      const payouts::NewPayout& request, const idempotency::Record& record) {
  if (record.endpoint != request.endpoint || record.request_hash != request.request_hash) {
    return responder.send_error(Error::make(
        ErrorCode::idempotency_conflict,
        "This Idempotency-Key was already used with a different request; use a new key."));
  }
  if (record.response_status && record.response_body) {
    return responder.send(
        replayed(HttpResponse::json(*record.response_status, *record.response_body),
                 record.response_request_id));
  }
  const int abandoned_after_seconds =
      context.services->config.screening_wait_ms / 1000 + kAbandonedAfterExtraSeconds;
  if (record.age_seconds < abandoned_after_seconds) {
    auto error = Error::make(ErrorCode::idempotency_conflict,
                             "A request with this Idempotency-Key is still in progress; retry "
                             "after a second.");
    error.headers["Retry-After"] = "1";
    return responder.send_error(error);
  }
  // The first request never recorded its answer (its process died): answer from the payout.
  send(responder,
       answer_from_payout(*context.services, request.scope, record.resource_id,
                          responder.request_id()),
       true);
}

struct PendingCreate {
  ContextPtr context;
  Responder responder;
  idempotency::Scope scope;
  std::string payout_id;
};

void finish_create(const std::shared_ptr<PendingCreate>& pending) {
  send(pending->responder,
       answer_from_payout(*pending->context->services, pending->scope, pending->payout_id,
                          pending->responder.request_id()),
       false);
}

bool decided(model::PayoutStatus status) {
  return status != model::PayoutStatus::pending && status != model::PayoutStatus::screening;
}

// Waits for the screening decision without holding a worker thread, then answers.
void await_decision(ContextPtr context, Responder responder, const payouts::PayoutRow& created,
                    const idempotency::Scope& scope) {
  auto& services = *context->services;
  auto pending = std::make_shared<PendingCreate>(
      PendingCreate{context, std::move(responder), scope, created.resource.id});
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(services.config.screening_wait_ms);
  auto* workers = services.workers;
  const auto handle =
      services.payout_decisions->wait(created.resource.id, deadline, [pending, workers] {
        if (!workers->try_submit([pending] { finish_create(pending); })) finish_create(pending);
      });
  // The decision may have been committed before the waiter was registered.
  auto current = payouts::find(*services.db, scope.org_id, scope.mode, created.resource.id);
  if (!current.ok() || !*current || decided((*current)->status)) {
    services.payout_decisions->wake(handle);
  }
}

}  // namespace

void create_payout(ContextPtr context, Responder responder) {
  auto request = validate(*context);
  if (!request.ok()) return responder.send_error(request.error());
  auto& services = *context->services;
  if (context->api_key->mode == model::Mode::live) {
    // A retry with a used key gets the original answer even if live payouts became unavailable
    // since. (In test mode nothing is checked between here and the claim in create().)
    auto existing = idempotency::find(*services.db, request->scope);
    if (!existing.ok()) return responder.send_error(existing.error());
    if (*existing) return respond_existing(*context, std::move(responder), *request, **existing);
    if (auto live = check_live_mode(*context); !live.ok()) {
      return responder.send_error(live.error());
    }
  }
  auto outcome = payouts::create(*services.db, *request);
  if (!outcome.ok()) return responder.send_error(outcome.error());
  if (outcome->existing) {
    return respond_existing(*context, std::move(responder), *request, *outcome->existing);
  }
  services.relay->wake();
  if (services.config.screening_wait_ms == 0) {
    return send(responder,
                answer_from_payout(services, request->scope, outcome->created->resource.id,
                                   responder.request_id()),
                false);
  }
  await_decision(std::move(context), std::move(responder), *outcome->created, request->scope);
}

}  // namespace payrail::api
