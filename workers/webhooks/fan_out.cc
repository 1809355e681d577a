#include "workers/webhooks/fan_out.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/webhook_deliveries.h"

namespace payrail::workers::webhooks {

namespace deliveries = infra::repositories::webhook_deliveries;

void prefetch_fan_outs(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages) {
  std::vector<deliveries::FanOutMessage> fan_outs;
  fan_outs.reserve(messages.size());
  for (const auto* message : messages) {
    fan_outs.push_back({message->message_id, message->resource_id});
  }
  deliveries::prefetch_fan_outs(tx, fan_outs);
}

namespace {

// Deliveries scheduled for the message, or nothing when it was consumed before.
std::optional<int> schedule_deliveries(pqxx::work& tx, const topics::Envelope& message) {
  if (auto prefetched = deliveries::fan_out_prefetched(tx, message.message_id)) {
    if (prefetched->consumed) return std::nullopt;
    return prefetched->deliveries;
  }
  if (infra::outbox::is_consumed(tx, message.message_id)) return std::nullopt;
  return deliveries::fan_out(tx, message.resource_id);
}

}  // namespace

model::Status fan_out_event(pqxx::work& tx, const topics::Envelope& message,
                            const std::function<void()>& wake) {
  const auto count = schedule_deliveries(tx, message);
  if (!count) return model::ok_status();
  infra::outbox::mark_consumed(tx, message.message_id);
  if (*count > 0) {
    infra::log::info("webhooks.fanned_out",
                     {{"event_id", message.resource_id}, {"deliveries", std::to_string(*count)}});
    infra::pg::after_commit(wake);
  }
  return model::ok_status();
}

}  // namespace payrail::workers::webhooks
