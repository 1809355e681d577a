#include "workers/execution/execute_payout.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/broadcasts.h"
#include "infra/repositories/payouts.h"

namespace payrail::workers::execution {
namespace {

namespace payouts = infra::repositories::payouts;
namespace broadcasts = infra::repositories::broadcasts;
using infra::kafka::HandlerOutcome;
using model::PayoutStatus;

struct Pending {
  payouts::PayoutRow payout;
  broadcasts::Broadcast broadcast;
};

// Step 1: approved -> processing (event payout.processing) and the broadcast intent, committed
// before the adapter is called.
std::optional<Pending> begin_execution(pqxx::work& tx, const topics::Envelope& message) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return std::nullopt;
  auto payout = payouts::lock(tx, message.resource_id);
  if (payout && payout->status == PayoutStatus::approved) {
    payout = payouts::transition(tx, *payout, model::PayoutTrigger::execute);
  }
  if (!payout || payout->status != PayoutStatus::processing) {
    infra::outbox::mark_consumed(tx, message.message_id);  // cancelled, or finished already
    return std::nullopt;
  }
  return Pending{*payout, broadcasts::begin(tx, payout->resource.id)};
}

// Step 2: record the outcome; a rejection fails the payout (refund, payout.failed), an accepted
// broadcast goes to settlement.
model::Status finish_execution(pqxx::work& tx, const topics::Envelope& message,
                               const infra::chain::BroadcastOutcome& outcome) {
  auto payout = payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != PayoutStatus::processing ||
      infra::outbox::is_consumed(tx, message.message_id)) {
    infra::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& id = payout->resource.id;
  broadcasts::finish(tx, id, outcome.accepted, outcome.tx_hash, outcome.failure_reason);
  const auto recorded = *broadcasts::find(tx, id);  // the first recorded outcome wins
  if (recorded.outcome == "rejected") {
    payouts::transition(tx, *payout, model::PayoutTrigger::broadcast_failed,
                        {.failure_reason = recorded.failure_reason});
  } else {
    infra::outbox::enqueue(tx, topics::kPayoutsBroadcast, payout->org_id, payout->resource.mode,
                           id);
  }
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("execution.finished", {{"payout_id", id}, {"outcome", *recorded.outcome}});
  return model::ok_status();
}

infra::chain::Transfer transfer_of(const payouts::PayoutRow& payout, const std::string& reference) {
  const auto& resource = payout.resource;
  return {reference, resource.network, resource.currency, resource.amount, resource.address};
}

}  // namespace

HandlerOutcome execute_payout(infra::runtime::WorkerContext& context,
                              const infra::chain::ChainAdapters& adapters,
                              const topics::Envelope& message) {
  auto begun = context.pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<Pending>> {
    return begin_execution(tx, message);
  });
  if (!begun.ok()) return infra::runtime::retry_after(begun.error(), message.message_id);
  if (!*begun) return HandlerOutcome::done;
  const auto& pending = **begun;
  infra::chain::BroadcastOutcome outcome;
  if (pending.broadcast.outcome) {
    outcome.accepted = *pending.broadcast.outcome == "broadcast";
    outcome.tx_hash = pending.broadcast.tx_hash.value_or("");
    outcome.failure_reason = pending.broadcast.failure_reason.value_or("");
  } else {
    auto* adapter = adapters.for_mode(pending.payout.resource.mode);
    if (adapter == nullptr) {
      return infra::runtime::retry_after(
          model::Error::make(model::ErrorCode::provider_unavailable, "no live chain adapter"),
          message.message_id);
    }
    auto broadcast = adapter->broadcast(transfer_of(pending.payout, pending.broadcast.reference));
    if (!broadcast.ok()) return infra::runtime::retry_after(broadcast.error(), message.message_id);
    outcome = *broadcast;
  }
  auto finished =
      context.pool.transact([&](pqxx::work& tx) { return finish_execution(tx, message, outcome); });
  if (!finished.ok()) return infra::runtime::retry_after(finished.error(), message.message_id);
  return HandlerOutcome::done;
}

}  // namespace payrail::workers::execution
