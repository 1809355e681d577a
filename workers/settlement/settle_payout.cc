#include "workers/settlement/settle_payout.h"

#include <thread>

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/broadcasts.h"
#include "infra/repositories/payouts.h"

namespace payrail::workers::settlement {
namespace {

namespace payouts = infra::repositories::payouts;
namespace broadcasts = infra::repositories::broadcasts;
using infra::kafka::HandlerOutcome;

// How long until the simulated confirmation is due; 0 when due or nothing to wait for.
model::Result<long> delay_remaining_ms(infra::runtime::WorkerContext& context,
                                       const topics::Envelope& message) {
  return context.pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return broadcasts::remaining_delay_ms(tx, message.resource_id,
                                          context.config.settlement_delay_ms);
  });
}

model::Status confirm(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                      const topics::Envelope& message, bool& not_yet_confirmed) {
  auto payout = payouts::lock(tx, message.resource_id);
  const auto broadcast = payout ? broadcasts::find(tx, payout->resource.id) : std::nullopt;
  if (!payout || payout->status != model::PayoutStatus::processing || !broadcast ||
      broadcast->outcome != "broadcast" || infra::outbox::is_consumed(tx, message.message_id)) {
    infra::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = payout->resource;
  auto* adapter = adapters.for_mode(resource.mode);
  if (adapter == nullptr) {
    return model::Error::make(model::ErrorCode::provider_unavailable, "no live chain adapter");
  }
  auto confirmed = adapter->confirmed({broadcast->reference, resource.network, resource.currency,
                                       resource.amount, resource.address},
                                      *broadcast->tx_hash);
  if (!confirmed.ok()) return confirmed.error();
  if (!*confirmed) {
    not_yet_confirmed = true;
    return model::ok_status();
  }
  payouts::transition(tx, *payout, model::PayoutTrigger::confirm, {.tx_hash = broadcast->tx_hash});
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.completed", {{"payout_id", resource.id}});
  return model::ok_status();
}

}  // namespace

HandlerOutcome settle_payout(infra::runtime::WorkerContext& context,
                             const infra::chain::ChainAdapters& adapters,
                             const topics::Envelope& message) {
  auto remaining = delay_remaining_ms(context, message);
  if (!remaining.ok()) return infra::runtime::retry_after(remaining.error(), message.message_id);
  const long wait_ms = std::min<long>(*remaining, context.config.settlement_delay_ms);
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  bool not_yet_confirmed = false;
  auto settled = context.pool.transact(
      [&](pqxx::work& tx) { return confirm(tx, adapters, message, not_yet_confirmed); });
  if (!settled.ok()) return infra::runtime::retry_after(settled.error(), message.message_id);
  if (not_yet_confirmed) {
    return infra::runtime::retry_after(
        model::Error::make(model::ErrorCode::service_unavailable, "not yet confirmed"),
        message.message_id);
  }
  return HandlerOutcome::done;
}

}  // namespace payrail::workers::settlement
