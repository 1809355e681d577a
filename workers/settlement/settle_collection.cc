#include "workers/settlement/settle_collection.h"

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/time/clock.h"
#include "infra/store/collections/collections.h"
#include "infra/store/outbox/outbox.h"
#include "schemas/model/common/invariant.h"
#include "workers/settlement/apply_provider_event.h"

namespace payrail::workers::settlement {
namespace {

namespace collections = infra::store::collections;

model::Status settle(pqxx::work& tx, const infra::rates::RateSources& rates,
                     const topics::Envelope& message) {
  if (infra::store::outbox::is_consumed(tx, message.message_id)) return model::ok_status();
  auto collection = collections::lock(tx, message.resource_id);
  if (collection) collection = apply_pending_notifications(tx, *collection);
  if (!collection || collection->status != model::CollectionStatus::received) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = collection->resource;
  auto source = rates.for_mode(resource.mode);
  if (!source.ok()) return source.error();
  const auto received = model::parse_decimal(*resource.received_amount);
  if (!received) {
    return model::Error::make(model::ErrorCode::internal_error, "unreadable received amount");
  }
  auto conversion = infra::rates::usdc_credited(**source, *received, resource.currency);
  if (!conversion.ok()) return conversion.error();
  const auto settled = collections::transition(
      tx, *collection, model::CollectionTrigger::settle,
      {.settled_amount = model::format_decimal(conversion->usdc),
       .settlement_rate = model::format_decimal(model::trim_zeros(conversion->rate.rate)),
       .settlement_rate_as_of = conversion->rate.as_of});
  model::invariant(settled.has_value(), "a received collection can be settled");
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.collection_settled", {{"collection_id", resource.id}});
  return model::ok_status();
}

}  // namespace

model::Status settle_collection(const infra::rates::RateSources& rates, pqxx::work& tx,
                                const topics::Envelope& message) {
  return settle(tx, rates, message);
}

}  // namespace payrail::workers::settlement
