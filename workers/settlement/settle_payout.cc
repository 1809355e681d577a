#include "workers/settlement/settle_payout.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/broadcasts.h"
#include "infra/repositories/payouts.h"
#include "workers/settlement/apply_when_due.h"

namespace payrail::workers::settlement {
namespace {

namespace payouts = infra::repositories::payouts;
namespace broadcasts = infra::repositories::broadcasts;

// The status decides, not the consumed mark: a message applied before completed the payout.
model::Status confirm(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                      const topics::Envelope& message) {
  auto payout = payouts::lock(tx, message.resource_id);
  const auto broadcast = payout ? broadcasts::find(tx, payout->resource.id) : std::nullopt;
  if (!payout || payout->status != model::PayoutStatus::processing || !broadcast ||
      broadcast->outcome != "broadcast") {
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
    // Not the message's failure: retried (and not counted) until the chain confirms.
    return model::Error::make(model::ErrorCode::service_unavailable, "not yet confirmed");
  }
  payouts::transition(tx, *payout, model::PayoutTrigger::confirm, {.tx_hash = broadcast->tx_hash});
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.completed", {{"payout_id", resource.id}});
  return model::ok_status();
}

}  // namespace

void settle_payouts(infra::runtime::WorkerContext& context,
                    const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch) {
  const long delay_ms = context.config.settlement_delay_ms;
  const auto remaining_ms = [&](pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
    return broadcasts::remaining_delays_ms(tx, ids, delay_ms);
  };
  apply_when_due(context, batch, delay_ms, remaining_ms, [&](pqxx::work& tx, std::size_t i) {
    return confirm(tx, adapters, batch.message(i));
  });
}

}  // namespace payrail::workers::settlement
