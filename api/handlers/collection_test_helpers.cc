#include "api/handlers/collection_test_helpers.h"

#include <array>
#include <vector>

#include "api/handlers/common.h"
#include "api/services.h"
#include "infra/adapters/collections/provider.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/collections/collections.h"
#include "infra/store/outbox/relay.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/money.h"

namespace payrail::api {
namespace {

namespace collections = infra::store::collections;
namespace provider_events = infra::store::collection_provider_events;
using model::Error;
using model::ErrorCode;
using model::ProviderEventType;
using model::json::Field;
using model::json::Kind;

constexpr std::array kReceiveFields{Field{"amount", Kind::string, false},
                                    Field{"reference", Kind::string, false}};
constexpr std::array kFailFields{Field{"reason", Kind::string, false}};

Error missing_collection() {
  return Error::make(ErrorCode::resource_missing, "No such collection.");
}

model::Status test_mode_only(const RequestContext& context) {
  if (context.api_key->mode == model::Mode::test) return model::ok_status();
  return Error::make(ErrorCode::resource_missing,
                     "Test helpers exist only in test mode; use a ck_test_ key.");
}

HttpResponse accepted(const collections::CollectionRow& collection) {
  return HttpResponse::json(202, model::collection_json(collection.resource));
}

// The notification the simulated provider sends, as received in the caller's own sandbox
// account: it can only ever match the caller's collections, whatever reference it carries.
model::ProviderEvent notification(const RequestContext& context, ProviderEventType type,
                                  const collections::CollectionRow& collection,
                                  std::string_view reference, std::string_view amount) {
  const auto& resource = collection.resource;
  return context.services->collection_providers->simulator().notification(
      type, resource.method, reference, amount, resource.currency, collection.org_id);
}

// Records the notifications in order, in one transaction with the collection locked, after
// `check` accepted its status. `build` sees the transaction too (what was recorded before).
template <class Check, class Build>
model::Result<HttpResponse> record_for(RequestContext& context, Check&& check, Build&& build) {
  const auto& principal = *context.api_key;
  auto answer = context.services->db->transact([&](pqxx::work& tx) -> model::Result<HttpResponse> {
    const auto collection = collections::lock(tx, context.path_param("id"));
    if (!collection || collection->org_id != principal.org_id ||
        collection->resource.mode != principal.mode) {
      return missing_collection();
    }
    if (auto status = check(*collection); !status.ok()) return status.error();
    for (const auto& event : build(tx, *collection)) provider_events::record(tx, event);
    return accepted(*collection);
  });
  if (answer.ok()) context.services->relay->wake();
  return answer;
}

}  // namespace

model::Result<HttpResponse> test_helper_receive(RequestContext& context) {
  if (auto status = test_mode_only(context); !status.ok()) return status.error();
  auto body = parse_body(context, kReceiveFields);
  if (!body.ok()) return body.error();
  if (auto status = check_text(*body, "reference", model::kReferenceInputLengthMax); !status.ok()) {
    return status.error();
  }
  const auto amount_text = model::json::string_member(*body, "amount");
  const auto reference = model::json::string_member(*body, "reference");
  std::optional<std::string> amount;
  return record_for(
      context,
      [&](const collections::CollectionRow& collection) -> model::Status {
        if (!amount_text) return model::ok_status();
        auto parsed = model::parse_amount(
            *amount_text, *model::minor_units(collection.resource.currency), "amount");
        if (!parsed.ok()) return parsed.error();
        amount = model::format_decimal(*parsed);
        return model::ok_status();
      },
      [&](pqxx::work&, const collections::CollectionRow& collection) {
        return std::vector{notification(context, ProviderEventType::payment_received, collection,
                                        reference ? *reference : collection.reference,
                                        amount ? *amount : collection.resource.amount)};
      });
}

model::Result<HttpResponse> test_helper_fail(RequestContext& context) {
  if (auto status = test_mode_only(context); !status.ok()) return status.error();
  auto body = parse_body(context, kFailFields);
  if (!body.ok()) return body.error();
  auto reason = ProviderEventType::payment_failed;
  if (const auto text = model::json::string_member(*body, "reason")) {
    const auto parsed = model::parse_provider_event_type(*text);
    if (!parsed || *parsed == ProviderEventType::payment_received) {
      return model::bad_request("reason must be payment_failed or payment_returned.", "reason");
    }
    reason = *parsed;
  }
  using S = model::CollectionStatus;
  return record_for(
      context,
      [&](const collections::CollectionRow& collection) -> model::Status {
        if (collection.status == S::awaiting_payment || collection.status == S::received) {
          return model::ok_status();
        }
        return Error::make(ErrorCode::collection_unexpected_state,
                           "Only a collection awaiting payment or received can fail; this one is " +
                               collection.resource.status + ".");
      },
      [&](pqxx::work& tx, const collections::CollectionRow& collection) {
        // The payment that fails: the one applied, or one recorded and waiting to be applied
        // (a /receive just before); only a collection with neither gets a payment first.
        std::vector<model::ProviderEvent> events;
        auto paid = collection.resource.received_amount;
        if (collection.status == S::awaiting_payment) {
          paid = provider_events::waiting_payment(tx, collection.resource.id);
          if (!paid) {
            paid = collection.resource.amount;
            events.push_back(notification(context, ProviderEventType::payment_received, collection,
                                          collection.reference, *paid));
          }
        }
        events.push_back(notification(context, reason, collection, collection.reference,
                                      paid ? *paid : collection.resource.amount));
        return events;
      });
}

model::Result<HttpResponse> test_helper_expire(RequestContext& context) {
  if (auto status = test_mode_only(context); !status.ok()) return status.error();
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto collection = collections::expire_now(*context.services->db, principal.org_id, principal.mode,
                                            context.path_param("id"));
  if (!collection.ok()) return collection.error();
  return accepted(*collection);
}

}  // namespace payrail::api
