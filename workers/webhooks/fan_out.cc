#include "workers/webhooks/fan_out.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/webhook_deliveries.h"

namespace payrail::workers::webhooks {

model::Status fan_out_event(pqxx::work& tx, const topics::Envelope& message,
                            const std::function<void()>& wake) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return model::ok_status();
  const int count = infra::repositories::webhook_deliveries::fan_out(tx, message.resource_id);
  infra::outbox::mark_consumed(tx, message.message_id);
  if (count > 0) {
    infra::log::info("webhooks.fanned_out",
                     {{"event_id", message.resource_id}, {"deliveries", std::to_string(count)}});
    infra::pg::after_commit(wake);
  }
  return model::ok_status();
}

}  // namespace payrail::workers::webhooks
