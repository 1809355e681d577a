#include "workers/execution/execute_payout.h"

#include <map>

#include "infra/plumbing/log/log.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/payouts/evm_transactions.h"
#include "infra/store/payouts/payouts.h"
#include "schemas/model/common/invariant.h"

namespace payrail::workers::execution {
namespace {

namespace payouts = infra::store::payouts;
namespace broadcasts = infra::store::broadcasts;
namespace evm_transactions = infra::store::evm_transactions;
using model::PayoutStatus;

struct Pending {
  payouts::PayoutRow payout;
  broadcasts::Broadcast broadcast;
  // What is sent: the transaction recorded with the payout's nonce (EVM), or the simulator's.
  std::optional<model::SignedTransfer> signed_transfer;
  std::optional<model::Error> not_signed;  // why there is none yet (retried)
};

// What the send came to, with the hash that names the transfer.
struct Answer {
  bool accepted = false;
  std::string tx_hash;
  std::string failure_reason;
  bool has_nonce = false;                   // the transfer is recorded in evm_transactions
  std::optional<std::uint64_t> head_block;  // the node's head when it took the transfer
  bool below_base_fee = false;  // refused for its max fee: settlement replaces it (stale)
};

infra::chain::Transfer transfer_of(const payouts::PayoutRow& payout, const std::string& reference) {
  const auto& resource = payout.resource;
  return {reference, resource.network, resource.currency, resource.amount, resource.address};
}

// What the funding check decided for the batch's live payouts without a nonce, by payout id
// (absent: funded, or not checked).
using Fundings = std::map<std::string, infra::chain::Funding>;

// The transaction to send, inside the transaction that holds the payout's lock: the one recorded
// before (any retry re-sends those bytes), else, for an adapter whose transactions carry a nonce,
// a new one signed at the sender's next nonce and recorded with it before any send.
void attach_signed(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                   const Fundings& fundings, Pending& pending) {
  if (pending.broadcast.outcome) return;  // the outcome is recorded: nothing is sent again
  auto* adapter = adapters.for_mode(pending.payout.resource.mode);
  if (adapter == nullptr) {
    pending.not_signed =
        model::Error::make(model::ErrorCode::provider_unavailable, "no live chain adapter");
    return;
  }
  const auto transfer = transfer_of(pending.payout, pending.broadcast.reference);
  const auto sender = adapter->sender(transfer.network);
  auto signed_transfer = [&]() -> model::Result<model::SignedTransfer> {
    if (!sender) return adapter->sign(transfer, std::nullopt);
    const auto& payout_id = pending.payout.resource.id;
    auto recorded = evm_transactions::of_payout(tx, payout_id);
    if (!recorded.empty()) return recorded.back().signed_transfer;  // the latest replacement
    if (const auto funding = fundings.find(payout_id); funding != fundings.end()) {
      // No nonce for a transfer the hot wallet cannot fund: it would hold up every later one.
      return model::Error::make(model::ErrorCode::provider_unavailable,
                                "the hot wallet of " + transfer.network +
                                    " cannot fund this payout yet: waiting for funds");
    }
    const auto nonce = evm_transactions::lock_next_nonce(tx, transfer.network, *sender);
    if (!nonce) {
      return model::Error::make(model::ErrorCode::provider_unavailable,
                                "the hot wallet of " + transfer.network + " has no nonce yet");
    }
    auto signed_now = adapter->sign(transfer, *nonce);
    if (signed_now.ok()) evm_transactions::record_first(tx, payout_id, *signed_now);
    return signed_now;
  }();
  if (signed_transfer.ok()) {
    pending.signed_transfer = std::move(*signed_transfer);
  } else {
    pending.not_signed = signed_transfer.error();
  }
}

// A live payout the hot wallet could not fund within the network's bound fails with its refund.
// It has no nonce (the check read none, and only this worker allocates one, under this lock).
bool give_up_funding(pqxx::work& tx, const Fundings& fundings, const payouts::PayoutRow& payout) {
  const auto funding = fundings.find(payout.resource.id);
  if (funding == fundings.end() || funding->second != infra::chain::Funding::given_up) return false;
  if (!evm_transactions::of_payout(tx, payout.resource.id).empty()) return false;
  const std::string reason = "hot_wallet_unfunded: the hot wallet of " + payout.resource.network +
                             " could not fund this payout within the configured bound";
  std::optional<payouts::PayoutRow> failed;
  if (payout.status == PayoutStatus::approved) {
    failed = payouts::transition(
        tx, payout, {model::PayoutTrigger::execute, model::PayoutTrigger::broadcast_failed},
        {.failure_reason = reason});
  } else if (payout.status == PayoutStatus::processing) {
    failed = payouts::transition(tx, payout, model::PayoutTrigger::broadcast_failed,
                                 {.failure_reason = reason});
  }
  if (!failed) return false;
  infra::log::info("execution.unfunded", {{"payout_id", payout.resource.id}});
  return true;
}

// Step 1 (one transaction for the batch): approved -> processing (event payout.processing), the
// broadcast intent and, with a nonce, the signed transaction, committed before the adapter sends
// anything. The status decides, not the consumed mark: a message applied before finds the payout
// past processing, or processing with its broadcast's outcome recorded (then no adapter call, and
// step 2 writes nothing: see there).
std::optional<Pending> begin_execution(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                                       const Fundings& fundings, const topics::Envelope& message) {
  auto payout = payouts::lock(tx, message.resource_id);
  if (payout && give_up_funding(tx, fundings, *payout)) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
    return std::nullopt;
  }
  std::optional<Pending> pending;
  if (payout && payout->status == PayoutStatus::approved) {
    payout = payouts::transition(tx, *payout, model::PayoutTrigger::execute);
    // Approved until now, so it has no intent yet: record one (deferred to the commit).
    if (payout && payout->status == PayoutStatus::processing) {
      pending = Pending{*payout, broadcasts::record_intent(tx, payout->resource.id)};
    }
  } else if (payout && payout->status == PayoutStatus::processing) {
    pending = Pending{*payout, broadcasts::begin(tx, payout->resource.id)};  // the intent may exist
  }
  if (!pending) {
    infra::store::outbox::mark_consumed(tx, message.message_id);  // cancelled, or finished already
    return std::nullopt;
  }
  attach_signed(tx, adapters, fundings, *pending);
  return pending;
}

// Step 2 (after the adapter, one transaction for the batch): record the outcome; a rejection fails
// the payout (refund, payout.failed), an accepted broadcast goes to settlement. The outcome
// decides, not the consumed mark: it is recorded only here, with the failure or the settlement
// message, so an outcome this statement did not write was applied before, all of it.
model::Status finish_execution(pqxx::work& tx, const topics::Envelope& message,
                               const Answer& answer) {
  auto payout = payouts::lock(tx, message.resource_id);
  const auto recorded =  // the first recorded outcome wins
      payout && payout->status == PayoutStatus::processing
          ? broadcasts::finish(tx, payout->resource.id, answer.accepted, answer.tx_hash,
                               answer.failure_reason)
          : std::nullopt;
  if (!recorded || !recorded->written) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& id = payout->resource.id;
  if (recorded->outcome == "rejected") {
    const auto failed = payouts::transition(tx, *payout, model::PayoutTrigger::broadcast_failed,
                                            {.failure_reason = recorded->failure_reason});
    model::invariant(failed.has_value(),
                     "a processing payout whose broadcast was refused can fail");
  } else {
    if (answer.has_nonce && answer.below_base_fee) {
      // Never taken as signed: settlement replaces it at its nonce (it is stale at once), rather
      // than this message re-sending it forever with every later nonce of the wallet behind it.
      evm_transactions::mark_refused_below_base_fee(tx, answer.tx_hash, answer.head_block);
    } else if (answer.has_nonce) {
      evm_transactions::mark_sent(tx, answer.tx_hash, answer.head_block);
    }
    infra::store::outbox::enqueue(tx, topics::kPayoutsBroadcast, payout->org_id,
                                  payout->resource.mode, id);
  }
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("execution.finished", {{"payout_id", id}, {"outcome", *recorded->outcome}});
  return model::ok_status();
}

// The recorded outcome when an earlier attempt got one, else the adapter's answer to sending the
// transaction recorded in step 1.
model::Result<Answer> broadcast_once(const infra::chain::ChainAdapters& adapters,
                                     const Pending& pending) {
  if (pending.broadcast.outcome) {
    Answer answer;
    answer.accepted = *pending.broadcast.outcome == "broadcast";
    answer.tx_hash = pending.broadcast.tx_hash.value_or("");
    answer.failure_reason = pending.broadcast.failure_reason.value_or("");
    return answer;
  }
  if (pending.not_signed) return *pending.not_signed;
  auto* adapter = adapters.for_mode(pending.payout.resource.mode);
  const auto& signed_transfer = *pending.signed_transfer;
  auto sent =
      adapter->send(transfer_of(pending.payout, pending.broadcast.reference), signed_transfer);
  if (!sent.ok()) return sent.error();
  return Answer{sent->accepted,       signed_transfer.hash,
                sent->failure_reason, signed_transfer.nonce.has_value(),
                sent->head_block,     sent->below_base_fee};
}

// Before the batch's first transaction: which of its live payouts without a nonce the hot
// wallets cannot fund now (their payouts wait: no nonce, no signature), or gave up on. Read
// without a lock; a payout the read missed is checked again under its lock (the recorded nonce).
Fundings check_funding(infra::runtime::WorkerContext& context,
                       const infra::chain::ChainAdapters& adapters,
                       const infra::runtime::Batch& batch) {
  Fundings fundings;
  auto* live = adapters.for_mode(model::Mode::live);
  if (live == nullptr || live->networks().empty()) return fundings;
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i) && batch.message(i).mode == model::Mode::live) {
      ids.push_back(batch.message(i).resource_id);
    }
  }
  if (ids.empty()) return fundings;
  auto awaiting = context.pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::vector<evm_transactions::AwaitingNonce>> {
        return evm_transactions::awaiting_nonce(tx, ids);
      });
  if (!awaiting.ok() || awaiting->empty()) return fundings;
  std::vector<infra::chain::FundingNeed> needs;
  for (const auto& each : *awaiting) {
    needs.push_back(
        {{each.payout_id, each.network, each.asset, each.amount, each.address}, each.age_s});
  }
  auto checked = live->check_funding(needs);
  if (!checked.ok()) {
    infra::log::warn("execution.funding_unknown", {{"error", checked.error().message}});
    for (const auto& need : needs) {  // not known: none is signed now
      fundings[need.transfer.reference] = infra::chain::Funding::waiting;
    }
    return fundings;
  }
  for (std::size_t i = 0; i < needs.size(); ++i) {
    if ((*checked)[i] != infra::chain::Funding::funded) {
      fundings[needs[i].transfer.reference] = (*checked)[i];
    }
  }
  return fundings;
}

// Fees are read before the batch's first transaction, once per network of the live adapter, and
// only when the batch holds a live payout: test mode never touches a node. A network whose fees
// cannot be read now leaves its payouts unsigned (retried).
void prepare_live(const infra::chain::ChainAdapters& adapters, const infra::runtime::Batch& batch) {
  auto* live = adapters.for_mode(model::Mode::live);
  if (live == nullptr) return;
  bool any_live = false;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    any_live = any_live || (batch.active(i) && batch.message(i).mode == model::Mode::live);
  }
  if (!any_live) return;
  for (const auto& network : live->networks()) {
    if (auto prepared = live->prepare(network); !prepared.ok()) {
      infra::log::warn("execution.fees_unavailable",
                       {{"network", network}, {"error", prepared.error().message}});
    }
  }
}

}  // namespace

void lock_batch(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages) {
  std::vector<std::string> payout_ids;
  payout_ids.reserve(messages.size());
  for (const auto* message : messages) payout_ids.push_back(message->resource_id);
  payouts::lock_all_with_broadcasts(tx, payout_ids);
  evm_transactions::lock_nonces_of(tx, payout_ids);  // after the payouts, as every batch does
}

void execute_payouts(infra::runtime::WorkerContext& context,
                     const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch) {
  prepare_live(adapters, batch);
  const auto fundings = check_funding(context, adapters, batch);
  infra::runtime::apply_around_call<Pending, Answer>(
      context, batch,
      [&](pqxx::work& tx, const topics::Envelope& message) {
        return begin_execution(tx, adapters, fundings, message);
      },
      [&](const Pending& pending) { return broadcast_once(adapters, pending); }, finish_execution);
}

}  // namespace payrail::workers::execution
