#include "api/handlers/fiat_payout_create.h"

#include <array>

#include "api/handlers/common.h"
#include "api/handlers/idempotent_create.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/adapters/partners/payout_partner.h"
#include "infra/adapters/rates/rate_source.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/ids.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/money/ledger.h"
#include "infra/store/organizations/rails.h"
#include "infra/store/outbox/relay.h"
#include "infra/store/screening/screening_workers.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/limits.h"

namespace payrail::api {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;
namespace idempotency = infra::store::idempotency;
using model::Error;
using model::ErrorCode;
using model::json::Field;
using model::json::Kind;

constexpr std::string_view kEndpoint = "POST /v1/fiat-payouts";
constexpr std::size_t kBeneficiaryNameLengthMax = 140;

constexpr std::array kBodyFields{
    Field{"amount", Kind::string, true}, Field{"currency", Kind::string, true},
    Field{"country", Kind::string, true}, Field{"beneficiary", Kind::object, true},
    Field{"metadata", Kind::object, false}};
// The account's own shape (an object with the method's fields) is the corridor table's to judge:
// 422 unsupported_country naming the field (schemas/model/fiat_payouts/corridors.h).
constexpr std::array kBeneficiaryFields{Field{"name", Kind::string, true},
                                        Field{"account", Kind::any, true}};

// A validated request: everything but what the data key and the rate source add.
struct ValidRequest {
  idempotency::Scope scope;
  const rapidjson::Document* body;
  std::string name;
  model::ValidatedAccount account;
  model::Decimal amount;
  std::string currency;
  std::string country;
  std::optional<std::string> metadata_json;
};

// Checks in a fixed order: Idempotency-Key, the body's shape, beneficiary.name, the corridor
// (country, currency, account), the amount in the currency's minor units, metadata.
model::Result<ValidRequest> validate(const RequestContext& context, const rapidjson::Document& body,
                                     std::string key) {
  const auto& beneficiary = *model::json::member(body, "beneficiary");
  if (auto shape = model::json::check_object(beneficiary, kBeneficiaryFields, "beneficiary");
      !shape.ok()) {
    return shape.error();
  }
  const auto name = *model::json::string_member(beneficiary, "name");
  if (auto text = model::json::check_text(name, "beneficiary.name", kBeneficiaryNameLengthMax);
      !text.ok()) {
    return text.error();
  }
  const auto country = *model::json::string_member(body, "country");
  const auto currency = *model::json::string_member(body, "currency");
  auto account = model::validate_beneficiary_account(country, currency,
                                                     *model::json::member(beneficiary, "account"));
  if (!account.ok()) return account.error();
  auto amount = model::parse_amount(*model::json::string_member(body, "amount"),
                                    *model::minor_units(currency), "amount");
  if (!amount.ok()) return amount.error();
  std::optional<std::string> metadata_json;
  if (const auto* metadata = model::json::member(body, "metadata")) {
    if (auto status = model::json::check_metadata(*metadata); !status.ok()) return status.error();
    metadata_json = model::json::serialize(*metadata);
  }
  return ValidRequest{{context.api_key->org_id, context.api_key->mode, std::move(key)},
                      &body,
                      std::string(name),
                      std::move(*account),
                      *amount,
                      std::string(currency),
                      std::string(country),
                      std::move(metadata_json)};
}

// The key's request: the hash is keyed with the data key, so the idempotency record holds
// nothing from which an account number could be recovered. During a key rotation a key used
// before it also matches its hash under the previous key.
idempotent_create::CreateRequest keyed_request(const ValidRequest& valid,
                                             const infra::crypto::DataKey& key) {
  const auto hashed = std::string(kEndpoint) + "\n" + model::json::canonical(*valid.body);
  idempotent_create::CreateRequest request{valid.scope, std::string(kEndpoint),
                                         infra::crypto::hmac_sha256(key.bytes(), hashed)};
  if (!key.previous_bytes().empty()) {
    request.previous_request_hash = infra::crypto::hmac_sha256(key.previous_bytes(), hashed);
  }
  return request;
}

// The stored form: the account sealed and masked, the USDC needed at the mode's rate, the USD
// value for limits.
model::Result<fiat_payouts::NewFiatPayout> to_new_payout(
    const RequestContext& context, const ValidRequest& valid,
    const idempotent_create::CreateRequest& keyed, const infra::crypto::DataKey& key) {
  auto sealed = key.seal(valid.account.full_json());
  if (!sealed.ok()) return sealed.error();
  auto source = context.services->rates->for_mode(valid.scope.mode);
  if (!source.ok()) return source.error();
  auto conversion = infra::rates::usdc_needed(**source, valid.amount, valid.currency);
  if (!conversion.ok()) return conversion.error();
  const auto amount_usd = model::value_in_usd(valid.amount, valid.currency);
  if (!amount_usd) return Error::make(ErrorCode::internal_error, "An internal error occurred.");
  fiat_payouts::NewFiatPayout request;
  request.scope = keyed.scope;
  request.endpoint = keyed.endpoint;
  request.request_hash = keyed.request_hash;
  request.amount = model::format_decimal(valid.amount);
  request.currency = valid.currency;
  request.country = valid.country;
  request.beneficiary_name = valid.name;
  request.account_type = std::string(valid.account.type());
  request.account_sealed = std::move(*sealed);
  request.account_masked_json = valid.account.masked_json();
  request.usdc_amount = model::format_decimal(conversion->usdc);
  request.rate = model::format_decimal(conversion->rate.rate);
  request.rate_as_of = conversion->rate.as_of;
  request.amount_usd = model::format_decimal(*amount_usd);
  request.metadata_json = valid.metadata_json;
  return request;
}

// Live mode moves real funds: a verified business, a payout partner, the corridor enabled for
// the organization by an operator, a rate source and loaded sanctions lists, all checked before
// anything is held.
model::Status check_live_mode(const RequestContext& context, std::string_view country) {
  if (context.api_key->mode != model::Mode::live) return model::ok_status();
  if (auto verified = check_live_create(*context.api_key, "Live fiat payouts"); !verified.ok()) {
    return verified;
  }
  auto& services = *context.services;
  if (!infra::partners::live_partner_configured(services.config.payout_partner)) {
    return Error::make(ErrorCode::provider_unavailable,
                       "Live fiat payouts are not available: no payout partner is configured.");
  }
  auto enabled = infra::store::rails::is_enabled(
      *services.db, context.api_key->org_id, infra::store::rails::RailKind::fiat_corridor, country);
  if (!enabled.ok()) return enabled.error();
  if (!*enabled) {
    return Error::make(ErrorCode::provider_unavailable,
                       "Live fiat payouts to " + std::string(country) +
                           " are not enabled for this organization yet.");
  }
  if (auto source = services.rates->for_mode(model::Mode::live); !source.ok()) {
    return source.error();
  }
  auto available = infra::store::screening_workers::sanctions_available(*services.db);
  if (!available.ok()) return available.error();
  if (!*available) {
    return Error::make(ErrorCode::sanctions_unavailable,
                       "Sanctions screening is temporarily unavailable; the payout was not sent.");
  }
  return model::ok_status();
}

// The answer for a fiat payout once its screening is decided (or the wait ran out).
infra::store::creates::Answer decision_response(const fiat_payouts::FiatPayoutRow& payout,
                               const std::string& request_id) {
  if (payout.status == model::FiatPayoutStatus::blocked) {
    auto error = Error::make(ErrorCode::screening_blocked,
                             "The beneficiary was blocked by screening; no funds moved (fiat "
                             "payout " +
                                 payout.resource.id + ").");
    error.extra["fiat_payout_id"] = payout.resource.id;
    const auto response = error_response(error, request_id);
    return {response.status, response.body};
  }
  const int status = payout.status == model::FiatPayoutStatus::pending_approval ? 202 : 201;
  return {status, model::fiat_payout_json(payout.resource)};
}

const idempotent_create::Resource kFiatPayoutResource{
    .answer = [](pqxx::transaction_base& tx, const std::vector<idempotent_create::Wanted>& wanted) {
      return infra::store::creates::answer_rows(tx, wanted, fiat_payouts::find_many, decision_response);
    }};

// Everything after validation: the live checks (a used key is answered first), the create
// transaction, and the answer once screening decided.
void create_validated(ContextPtr context, Responder responder, const ValidRequest& valid) {
  auto& services = *context->services;
  auto key = data_key(*context, "fiat_payouts.data_key_invalid");
  if (!key.ok()) return responder.send_error(key.error());
  const auto keyed = keyed_request(valid, *key);
  if (valid.scope.mode == model::Mode::live) {
    // A retry with a used key gets the original answer even if live fiat payouts became
    // unavailable since.
    auto unused = idempotent_create::replay_used_key(*context, std::move(responder),
                                                   kFiatPayoutResource, keyed);
    if (!unused) return;
    responder = std::move(*unused);
    if (auto live = check_live_mode(*context, valid.country); !live.ok()) {
      return responder.send_error(live.error());
    }
  }
  auto request = to_new_payout(*context, valid, keyed, *key);
  if (!request.ok()) return responder.send_error(request.error());
  request->id = infra::new_id("fpo_");
  idempotent_create::DecisionWait decision(context, kFiatPayoutResource, request->scope, request->id);
  auto outcome = services.creates->write_one<fiat_payouts::CreateOutcome>(
      infra::store::ledger::balance_key(request->scope.org_id, request->scope.mode,
                                        fiat_payouts::kFundingAsset),
      [&](pqxx::work& tx) { return fiat_payouts::create(tx, *request); },
      fiat_payouts::create_ahead(*request));
  if (!outcome.ok()) return responder.send_error(outcome.error());
  if (outcome->existing) {
    return idempotent_create::respond_existing(*context, std::move(responder), kFiatPayoutResource,
                                             keyed, *outcome->existing);
  }
  services.relay->wake();
  decision.answer(std::move(responder));
}

}  // namespace

void create_fiat_payout(ContextPtr context, Responder responder) {
  auto key = idempotent_create::idempotency_key(context->request);
  if (!key.ok()) return responder.send_error(key.error());
  auto body = parse_body(*context, kBodyFields);
  if (!body.ok()) return responder.send_error(body.error());
  auto valid = validate(*context, *body, std::move(*key));
  if (!valid.ok()) return responder.send_error(valid.error());
  create_validated(std::move(context), std::move(responder), *valid);
}

}  // namespace payrail::api
