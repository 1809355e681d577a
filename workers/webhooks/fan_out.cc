#include "workers/webhooks/fan_out.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/webhook_deliveries.h"

namespace payrail::workers::webhooks {

infra::kafka::HandlerOutcome fan_out_event(infra::runtime::WorkerContext& context,
                                           const topics::Envelope& message,
                                           const std::function<void()>& wake) {
  if (message.type != topics::kEvents.message_type) {
    infra::log::warn("webhooks.unexpected_message",
                     {{"message_id", message.message_id}, {"type", message.type}});
    return infra::kafka::HandlerOutcome::done;
  }
  auto created = context.pool.transact([&](pqxx::work& tx) -> model::Result<int> {
    if (infra::outbox::is_consumed(tx, message.message_id)) return 0;
    const int count = infra::repositories::webhook_deliveries::fan_out(tx, message.resource_id);
    infra::outbox::mark_consumed(tx, message.message_id);
    return count;
  });
  if (!created.ok()) return infra::runtime::retry_after(created.error(), message.message_id);
  if (*created > 0) {
    infra::log::info("webhooks.fanned_out",
                     {{"event_id", message.resource_id}, {"deliveries", std::to_string(*created)}});
    wake();
  }
  return infra::kafka::HandlerOutcome::done;
}

}  // namespace payrail::workers::webhooks
