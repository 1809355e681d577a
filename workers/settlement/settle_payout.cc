#include "workers/settlement/settle_payout.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/payouts/payouts.h"
#include "schemas/model/common/invariant.h"
#include "workers/settlement/apply_when_due.h"

namespace payrail::workers::settlement {
namespace {

namespace payouts = infra::store::payouts;
namespace broadcasts = infra::store::broadcasts;

using Recorded = std::map<std::string, broadcasts::Broadcast>;

// The broadcast as the batch read it, when that read found its outcome `broadcast`: an outcome is
// recorded once and never changed (broadcasts::finish), so that read is still current. Anything
// else is read again under the payout's lock.
std::optional<broadcasts::Broadcast> broadcast_of(pqxx::work& tx, const Recorded& recorded,
                                                  const std::string& payout_id) {
  const auto found = recorded.find(payout_id);
  if (found != recorded.end() && found->second.outcome == "broadcast") return found->second;
  return broadcasts::find(tx, payout_id);
}

// The status decides, not the consumed mark: a message applied before completed the payout.
model::Status confirm(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                      const Recorded& recorded, const topics::Envelope& message) {
  auto payout = payouts::lock(tx, message.resource_id);
  const auto broadcast = payout ? broadcast_of(tx, recorded, payout->resource.id) : std::nullopt;
  if (!payout || payout->status != model::PayoutStatus::processing || !broadcast ||
      broadcast->outcome != "broadcast") {
    infra::store::outbox::mark_consumed(tx, message.message_id);
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
  const auto completed =
      payouts::transition(tx, *payout, model::PayoutTrigger::confirm, {.tx_hash = broadcast->tx_hash});
  model::invariant(completed.has_value(), "a processing payout whose transfer is final completes");
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.completed", {{"payout_id", resource.id}});
  return model::ok_status();
}

}  // namespace

void settle_payouts(infra::runtime::WorkerContext& context,
                    const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch) {
  const long delay_ms = context.config.settlement_delay_ms;
  Recorded recorded;  // read with the delays: one statement for the batch, not one per payout
  const auto remaining_ms = [&](pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
    auto read = broadcasts::settling(tx, ids, delay_ms);
    recorded = std::move(read.recorded);
    return std::move(read.remaining_ms);
  };
  apply_when_due(context, batch, delay_ms, remaining_ms, [&](pqxx::work& tx, std::size_t i) {
    return confirm(tx, adapters, recorded, batch.message(i));
  });
}

}  // namespace payrail::workers::settlement
