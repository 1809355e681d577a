#include "workers/webhooks/fan_out.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/webhooks/webhook_deliveries.h"

namespace payrail::workers::webhooks {

namespace deliveries = infra::store::webhook_deliveries;

void prefetch_fan_outs(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages) {
  std::vector<deliveries::FanOutMessage> fan_outs;
  fan_outs.reserve(messages.size());
  for (const auto* message : messages) {
    fan_outs.push_back({message->message_id, message->resource_id});
  }
  deliveries::prefetch_fan_outs(tx, fan_outs);
}

model::Status fan_out_event(pqxx::work& tx, const topics::Envelope& message,
                            const std::function<void()>& wake) {
  const auto fanned_out = deliveries::fan_out(tx, {message.message_id, message.resource_id});
  if (fanned_out.consumed) return model::ok_status();
  infra::store::outbox::mark_consumed(tx, message.message_id);
  if (fanned_out.deliveries > 0) {
    infra::log::info(
        "webhooks.fanned_out",
        {{"event_id", message.resource_id}, {"deliveries", std::to_string(fanned_out.deliveries)}});
    infra::pg::after_commit(wake);
  }
  return model::ok_status();
}

}  // namespace payrail::workers::webhooks
