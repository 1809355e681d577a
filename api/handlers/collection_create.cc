#include "api/handlers/collection_create.h"

#include <array>

#include "api/handlers/common.h"
#include "api/handlers/idempotent_create.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/adapters/collections/provider.h"
#include "infra/adapters/rates/rate_source.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/ids.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/collections/collections.h"
#include "infra/store/organizations/rails.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::api {
namespace {

namespace collections = infra::store::collections;
namespace idempotency = infra::store::idempotency;
using model::Error;
using model::ErrorCode;
using model::json::Field;
using model::json::Kind;

constexpr std::string_view kEndpoint = "POST /v1/collections";
constexpr std::size_t kCustomerReferenceLengthMax = 200;

constexpr std::array kBodyFields{
    Field{"amount", Kind::string, true}, Field{"currency", Kind::string, true},
    Field{"method", Kind::string, true}, Field{"customer_reference", Kind::string, false},
    Field{"metadata", Kind::object, false}};

// The method and its currency, from the corridor table: 422 unsupported_method for either.
model::Result<const model::PaymentMethod*> collection_method(const rapidjson::Value& body) {
  const auto name = *model::json::string_member(body, "method");
  const auto* method = model::find_collection_method(name);
  if (method == nullptr) {
    return Error::make(ErrorCode::unsupported_method,
                       "method must be one of interac_etransfer, ach or eft.", "method");
  }
  if (!model::collection_accepts_currency(*method, *model::json::string_member(body, "currency"))) {
    return Error::make(ErrorCode::unsupported_method,
                       "The " + std::string(method->type) + " method collects " +
                           std::string(method->currency) + " only.",
                       "currency");
  }
  return method;
}

model::Result<collections::NewCollection> validate(const RequestContext& context) {
  auto key = idempotent_create::idempotency_key(context.request);
  if (!key.ok()) return key.error();
  auto body = parse_body(context, kBodyFields);
  if (!body.ok()) return body.error();
  auto method = collection_method(*body);
  if (!method.ok()) return method.error();
  auto amount = model::parse_amount(*model::json::string_member(*body, "amount"),
                                    *model::minor_units((*method)->currency), "amount");
  if (!amount.ok()) return amount.error();
  if (auto status = check_text(*body, "customer_reference", kCustomerReferenceLengthMax);
      !status.ok()) {
    return status.error();
  }
  const auto* metadata = model::json::member(*body, "metadata");
  if (metadata) {
    if (auto status = model::json::check_metadata(*metadata); !status.ok()) return status.error();
  }
  collections::NewCollection request;
  request.scope = {context.api_key->org_id, context.api_key->mode, *key};
  request.endpoint = std::string(kEndpoint);
  request.request_hash =
      infra::crypto::sha256(std::string(kEndpoint) + "\n" + model::json::canonical(*body));
  request.amount = model::format_decimal(*amount);
  request.currency = std::string((*method)->currency);
  request.method = *method;
  if (auto reference = model::json::string_member(*body, "customer_reference")) {
    request.customer_reference = std::string(*reference);
  }
  if (metadata) request.metadata_json = model::json::serialize(*metadata);
  request.expires_after_s = context.services->config.collection_expires_after_s;
  return request;
}

// Live collections take real money: a verified business, the rail enabled for the organization
// by an operator, a configured provider and a rate source to settle with, all checked before
// anything is created.
model::Status check_live_mode(const RequestContext& context, const model::PaymentMethod& method) {
  if (auto verified = check_live_create(*context.api_key, "Live collections"); !verified.ok()) {
    return verified;
  }
  auto& services = *context.services;
  auto enabled =
      infra::store::rails::is_enabled(*services.db, context.api_key->org_id,
                                      infra::store::rails::RailKind::collection_rail, method.type);
  if (!enabled.ok()) return enabled.error();
  if (!*enabled) {
    return Error::make(ErrorCode::provider_unavailable,
                       "Live " + std::string(method.type) +
                           " collections are not enabled for this organization yet.");
  }
  if (auto provider = services.collection_providers->for_mode(model::Mode::live); !provider.ok()) {
    return provider.error();
  }
  if (auto rates = services.rates->for_mode(model::Mode::live); !rates.ok()) {
    return rates.error();
  }
  return model::ok_status();
}

// The answer of a create, from the collection as it now is: 201 with its instructions.
infra::store::creates::Answer created_response(const collections::CollectionRow& collection,
                                               const std::string&) {
  return {201, model::collection_json(collection.resource)};
}

const idempotent_create::Resource kCollectionResource{
    .answer = [](pqxx::transaction_base& tx, const std::vector<idempotent_create::Wanted>& wanted) {
      return infra::store::creates::answer_rows(tx, wanted, collections::find_many,
                                                created_response);
    }};

}  // namespace

void create_collection(ContextPtr context, Responder responder) {
  auto request = validate(*context);
  if (!request.ok()) return responder.send_error(request.error());
  auto& services = *context->services;
  const auto mode = context->api_key->mode;
  const idempotent_create::CreateRequest keyed{request->scope, request->endpoint,
                                               request->request_hash};
  if (mode == model::Mode::live) {
    // A retry with a used key gets the original answer even if live collections became
    // unavailable since.
    auto unused = idempotent_create::replay_used_key(*context, std::move(responder),
                                                     kCollectionResource, keyed);
    if (!unused) return;
    responder = std::move(*unused);
    if (auto live = check_live_mode(*context, *request->method); !live.ok()) {
      return responder.send_error(live.error());
    }
  }
  auto provider = services.collection_providers->for_mode(mode);
  if (!provider.ok()) return responder.send_error(provider.error());
  request->id = infra::new_id("col_");
  request->reference = collections::new_reference();
  request->provider = std::string((*provider)->name());
  request->instructions_json = (*provider)->instructions_json(*request->method, request->reference);
  // Collections hold no balance: their creates take no contended row, whatever their group.
  auto outcome = services.creates->write_one<collections::CreateOutcome>(
      "", [&](pqxx::work& tx) { return collections::create(tx, *request); },
      collections::create_ahead(*request));
  if (!outcome.ok()) return responder.send_error(outcome.error());
  if (outcome->existing) {
    return idempotent_create::respond_existing(*context, std::move(responder), kCollectionResource,
                                               keyed, *outcome->existing);
  }
  idempotent_create::answer_now(*context, std::move(responder), kCollectionResource,
                                request->scope, request->id);
}

}  // namespace payrail::api
