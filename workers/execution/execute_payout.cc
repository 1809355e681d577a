#include "workers/execution/execute_payout.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/payouts/payouts.h"
#include "schemas/model/common/invariant.h"

namespace payrail::workers::execution {
namespace {

namespace payouts = infra::store::payouts;
namespace broadcasts = infra::store::broadcasts;
using model::PayoutStatus;

struct Pending {
  payouts::PayoutRow payout;
  broadcasts::Broadcast broadcast;
};

// Step 1 (one transaction for the batch): approved -> processing (event payout.processing) and the
// broadcast intent, committed before the adapter is called. The status decides, not the consumed
// mark: a message applied before finds the payout past processing, or processing with its
// broadcast's outcome recorded (then no adapter call, and step 2 writes nothing: see there).
std::optional<Pending> begin_execution(pqxx::work& tx, const topics::Envelope& message) {
  auto payout = payouts::lock(tx, message.resource_id);
  if (payout && payout->status == PayoutStatus::approved) {
    payout = payouts::transition(tx, *payout, model::PayoutTrigger::execute);
    // Approved until now, so it has no intent yet: record one (deferred to the commit).
    if (payout && payout->status == PayoutStatus::processing) {
      return Pending{*payout, broadcasts::record_intent(tx, payout->resource.id)};
    }
  }
  if (!payout || payout->status != PayoutStatus::processing) {
    infra::store::outbox::mark_consumed(tx, message.message_id);  // cancelled, or finished already
    return std::nullopt;
  }
  return Pending{*payout, broadcasts::begin(tx, payout->resource.id)};  // the intent may exist
}

// Step 2 (after the adapter, one transaction for the batch): record the outcome; a rejection fails
// the payout (refund, payout.failed), an accepted broadcast goes to settlement. The outcome
// decides, not the consumed mark: it is recorded only here, with the failure or the settlement
// message, so an outcome this statement did not write was applied before, all of it.
model::Status finish_execution(pqxx::work& tx, const topics::Envelope& message,
                               const infra::chain::BroadcastOutcome& outcome) {
  auto payout = payouts::lock(tx, message.resource_id);
  const auto recorded =  // the first recorded outcome wins
      payout && payout->status == PayoutStatus::processing
          ? broadcasts::finish(tx, payout->resource.id, outcome.accepted, outcome.tx_hash,
                               outcome.failure_reason)
          : std::nullopt;
  if (!recorded || !recorded->written) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& id = payout->resource.id;
  if (recorded->outcome == "rejected") {
    const auto failed = payouts::transition(tx, *payout, model::PayoutTrigger::broadcast_failed,
                                            {.failure_reason = recorded->failure_reason});
    model::invariant(failed.has_value(), "a processing payout whose broadcast was refused can fail");
  } else {
    infra::store::outbox::enqueue(tx, topics::kPayoutsBroadcast, payout->org_id,
                                  payout->resource.mode, id);
  }
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("execution.finished", {{"payout_id", id}, {"outcome", *recorded->outcome}});
  return model::ok_status();
}

infra::chain::Transfer transfer_of(const payouts::PayoutRow& payout, const std::string& reference) {
  const auto& resource = payout.resource;
  return {reference, resource.network, resource.currency, resource.amount, resource.address};
}

// The recorded outcome when an earlier attempt got one, else the adapter's answer.
model::Result<infra::chain::BroadcastOutcome> broadcast_once(
    const infra::chain::ChainAdapters& adapters, const Pending& pending) {
  if (pending.broadcast.outcome) {
    infra::chain::BroadcastOutcome outcome;
    outcome.accepted = *pending.broadcast.outcome == "broadcast";
    outcome.tx_hash = pending.broadcast.tx_hash.value_or("");
    outcome.failure_reason = pending.broadcast.failure_reason.value_or("");
    return outcome;
  }
  auto* adapter = adapters.for_mode(pending.payout.resource.mode);
  if (adapter == nullptr) {
    return model::Error::make(model::ErrorCode::provider_unavailable, "no live chain adapter");
  }
  return adapter->broadcast(transfer_of(pending.payout, pending.broadcast.reference));
}

}  // namespace

void execute_payouts(infra::runtime::WorkerContext& context,
                     const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch) {
  infra::runtime::apply_around_call<Pending, infra::chain::BroadcastOutcome>(
      context, batch, begin_execution,
      [&](const Pending& pending) { return broadcast_once(adapters, pending); }, finish_execution);
}

}  // namespace payrail::workers::execution
