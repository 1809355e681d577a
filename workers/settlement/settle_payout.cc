#include "workers/settlement/settle_payout.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/payouts/evm_transactions.h"
#include "infra/store/payouts/payouts.h"
#include "schemas/model/common/invariant.h"
#include "workers/settlement/apply_when_due.h"

namespace payrail::workers::settlement {
namespace {

namespace payouts = infra::store::payouts;
namespace broadcasts = infra::store::broadcasts;
namespace evm_transactions = infra::store::evm_transactions;

using Recorded = std::map<std::string, broadcasts::Broadcast>;
// What the chain said of each live payout's recorded transactions, asked before the batch's
// transaction: no node is called while payouts are locked.
using Inspections = std::map<std::string, model::Result<infra::chain::Inspection>>;

// The transaction that takes over a stale one's nonce: a replacement within the caps, else, once
// it is stuck (docs/evm.md "Exactly once on chain", nonce fillers), the zero-value self transfer
// that consumes the nonce. A filler is never replaced: it is sent again as recorded until mined.
model::Result<model::SignedTransfer> successor(infra::chain::ChainAdapter& live,
                                               const std::string& payout_id,
                                               const model::SignedTransfer& latest, bool stuck) {
  auto replacement = live.replace(latest);
  if (replacement.ok() || !stuck) return replacement;
  infra::log::warn("settlement.replacement_refused",
                   {{"payout_id", payout_id}, {"error", replacement.error().message}});
  return live.fill_nonce(latest);
}

// Replaces a stale transfer at its nonce. The replacement is recorded (under the payout's lock,
// while it is processing) before it is sent, as every transaction is; every hash stays, and
// whichever is mined settles the payout.
void replace_stale(infra::runtime::WorkerContext& context, infra::chain::ChainAdapter& live,
                   const std::string& payout_id, const model::SignedTransfer& latest, bool stuck) {
  if (latest.kind == model::ChainTransactionKind::nonce_filler) return;
  if (auto prepared = live.prepare(latest.network); !prepared.ok()) return;  // the node is away
  auto replacement = successor(live, payout_id, latest, stuck);
  if (!replacement.ok()) {
    infra::log::warn("settlement.replacement_refused",
                     {{"payout_id", payout_id}, {"error", replacement.error().message}});
    return;
  }
  const auto recorded = context.pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    const auto payout = payouts::lock(tx, payout_id);
    if (!payout || payout->status != model::PayoutStatus::processing) return false;
    evm_transactions::record_replacement(tx, payout_id, *replacement);
    return true;
  });
  if (!recorded.ok() || !*recorded) return;
  const auto sent = live.send({payout_id, latest.network, "", "", ""}, *replacement);
  if (!sent.ok() || !sent->accepted) return;  // sent again by a later inspection
  (void)context.pool.transact([&](pqxx::work& tx) -> model::Status {
    if (sent->below_base_fee) {  // the base fee rose again: replaced again at the next inspection
      evm_transactions::mark_refused_below_base_fee(tx, replacement->hash, sent->head_block);
    } else {
      evm_transactions::mark_sent(tx, replacement->hash, sent->head_block);
    }
    return model::ok_status();
  });
  const bool filler = replacement->kind == model::ChainTransactionKind::nonce_filler;
  infra::log::info(
      filler ? "settlement.nonce_filled" : "settlement.replaced",
      {{"payout_id", payout_id}, {"replaced", latest.hash}, {"replacement", replacement->hash}});
}

// The recorded transactions of the batch's live payouts (one read, no lock), each payout's
// inspected by the live adapter, and a stale one replaced. Payouts without recorded transactions
// (the staging simulator) are inspected under their lock, as the simulator calls nothing.
Inspections inspect_live(infra::runtime::WorkerContext& context,
                         const infra::chain::ChainAdapters& adapters,
                         const infra::runtime::Batch& batch) {
  Inspections inspections;
  auto* live = adapters.for_mode(model::Mode::live);
  if (live == nullptr || live->networks().empty()) return inspections;
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i) && batch.message(i).mode == model::Mode::live) {
      ids.push_back(batch.message(i).resource_id);
    }
  }
  if (ids.empty()) return inspections;
  using Transactions = std::map<std::string, std::vector<model::SignedTransfer>>;
  auto recorded =
      context.pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<Transactions> {
        Transactions found;
        for (const auto& id : ids) {
          for (auto& row : evm_transactions::of_payout(tx, id)) {
            found[id].push_back(std::move(row.signed_transfer));
          }
        }
        return found;
      });
  if (!recorded.ok()) return inspections;  // each payout is then retried under its lock
  for (const auto& [id, transactions] : *recorded) {
    auto inspection = live->inspect(transactions.front().network, transactions);
    if (inspection.ok() && !inspection->mined_hash && inspection->stale) {
      replace_stale(context, *live, id, transactions.back(), inspection->stuck);
    }
    inspections.emplace(id, std::move(inspection));
  }
  return inspections;
}

// What the chain says of the payout's transfer: the inspection asked before the transaction for
// a payout whose transactions carry a nonce, else the adapter's answer now (the simulator).
model::Result<infra::chain::Inspection> inspection_of(infra::chain::ChainAdapter& adapter,
                                                      const Inspections& inspections,
                                                      const payouts::PayoutRow& payout,
                                                      const broadcasts::Broadcast& broadcast) {
  const auto& resource = payout.resource;
  if (adapter.sender(resource.network)) {
    const auto found = inspections.find(resource.id);
    if (found == inspections.end()) {
      return model::Error::make(model::ErrorCode::service_unavailable, "not inspected yet");
    }
    return found->second;
  }
  return adapter.inspect(resource.network,
                         {{.network = resource.network, .hash = *broadcast.tx_hash}});
}

// The broadcast as the batch read it, when that read found its outcome `broadcast`: an outcome is
// recorded once and never changed (broadcasts::finish), so that read is still current. Anything
// else is read again under the payout's lock.
std::optional<broadcasts::Broadcast> broadcast_of(pqxx::work& tx, const Recorded& recorded,
                                                  const std::string& payout_id) {
  const auto found = recorded.find(payout_id);
  if (found != recorded.end() && found->second.outcome == "broadcast") return found->second;
  return broadcasts::find(tx, payout_id);
}

// Whether `mined_hash` is the payout's nonce filler, not its transfer.
bool filled(pqxx::work& tx, const std::string& payout_id, const std::string& mined_hash) {
  for (const auto& recorded : evm_transactions::of_payout(tx, payout_id)) {
    if (recorded.signed_transfer.hash == mined_hash) {
      return recorded.signed_transfer.kind == model::ChainTransactionKind::nonce_filler;
    }
  }
  return false;
}

// The status decides, not the consumed mark: a message applied before completed the payout.
model::Status confirm(pqxx::work& tx, const infra::chain::ChainAdapters& adapters,
                      const Recorded& recorded, const Inspections& inspections,
                      const topics::Envelope& message) {
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
  const bool has_nonce = adapter->sender(resource.network).has_value();
  auto inspection = inspection_of(*adapter, inspections, *payout, *broadcast);
  if (!inspection.ok()) return inspection.error();
  if (!inspection->mined_hash || !inspection->final) {
    // Not the message's failure: retried (and not counted) until the chain confirms.
    return model::Error::make(model::ErrorCode::service_unavailable, "not yet confirmed");
  }
  if (has_nonce) {
    evm_transactions::mark_mined(tx, *inspection->mined_hash, inspection->succeeded,
                                 inspection->block_number, inspection->block_hash);
    if (filled(tx, resource.id, *inspection->mined_hash)) {
      // The nonce filler took the nonce: the transfer can never be mined now. Refunded once.
      const auto failed = payouts::transition(
          tx, *payout, model::PayoutTrigger::broadcast_failed,
          {.failure_reason = "transfer_unmineable: the fee caps of " + resource.network +
                             " left the transfer unmined; its nonce was consumed by transaction " +
                             *inspection->mined_hash});
      model::invariant(failed.has_value(), "a processing payout whose nonce was filled can fail");
      infra::store::outbox::mark_consumed(tx, message.message_id);
      infra::log::info("settlement.unmineable", {{"payout_id", resource.id}});
      return model::ok_status();
    }
  }
  if (!inspection->succeeded) {
    // The transfer reverted on chain: it moved nothing and consumed its nonce. Refunded once: the
    // payout's status guards the message's replays.
    const auto failed = payouts::transition(
        tx, *payout, model::PayoutTrigger::broadcast_failed,
        {.failure_reason = "transfer_reverted: the token contract reverted transaction " +
                           *inspection->mined_hash});
    model::invariant(failed.has_value(), "a processing payout whose transfer reverted can fail");
    infra::store::outbox::mark_consumed(tx, message.message_id);
    infra::log::info("settlement.reverted", {{"payout_id", resource.id}});
    return model::ok_status();
  }
  const auto completed = payouts::transition(tx, *payout, model::PayoutTrigger::confirm,
                                             {.tx_hash = inspection->mined_hash});
  model::invariant(completed.has_value(), "a processing payout whose transfer is final completes");
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.completed", {{"payout_id", resource.id}});
  return model::ok_status();
}

}  // namespace

void settle_payouts(infra::runtime::WorkerContext& context,
                    const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch) {
  const long delay_ms = context.config.settlement_delay_ms;
  const auto inspections = inspect_live(context, adapters, batch);
  Recorded recorded;  // read with the delays: one statement for the batch, not one per payout
  const auto remaining_ms = [&](pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
    auto read = broadcasts::settling(tx, ids, delay_ms);
    recorded = std::move(read.recorded);
    return std::move(read.remaining_ms);
  };
  apply_when_due(context, batch, delay_ms, remaining_ms, [&](pqxx::work& tx, std::size_t i) {
    return confirm(tx, adapters, recorded, inspections, batch.message(i));
  });
}

}  // namespace payrail::workers::settlement
