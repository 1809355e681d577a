#include "workers/screening/screen_payout.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/blacklist.h"
#include "infra/repositories/payouts.h"
#include "infra/repositories/spend.h"
#include "schemas/model/destination.h"
#include "workers/screening/decision.h"

namespace payrail::workers::screening {
namespace {

namespace payouts = infra::repositories::payouts;
using infra::kafka::HandlerOutcome;
using model::PayoutStatus;
using model::PayoutTrigger;

// Step 1, its own transaction: the payout is visibly `screening` while the decision is made.
// Returns false when there is nothing (more) to do for this message.
model::Result<bool> start_screening(pqxx::work& tx, const topics::Envelope& message) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return false;
  auto payout = payouts::lock(tx, message.resource_id);
  if (payout && payout->status == PayoutStatus::pending) {
    payout = payouts::transition(tx, *payout, PayoutTrigger::start_screening);
  }
  if (!payout || payout->status != PayoutStatus::screening) {
    infra::outbox::mark_consumed(tx, message.message_id);  // cancelled meanwhile, or done
    return false;
  }
  return true;
}

PayoutTrigger trigger_for(const payouts::ScreeningResult& result, const payouts::PayoutRow& payout,
                          const model::PayoutLimits& limits) {
  if (result.blocked) return PayoutTrigger::screening_flagged;
  return infra::repositories::spend::within_auto_approval(payout.amount_usd, limits)
             ? PayoutTrigger::screening_clear
             : PayoutTrigger::screening_over_limit;
}

// Step 2: record the decision, release the hold if blocked, hand approved payouts to execution,
// and wake the API request waiting for this decision.
model::Status record_decision(pqxx::work& tx, const topics::Envelope& message,
                              const infra::sanctions::SanctionsLists& lists) {
  auto payout = payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != PayoutStatus::screening ||
      infra::outbox::is_consumed(tx, message.message_id)) {
    infra::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = payout->resource;
  const auto network = model::parse_network(resource.network);
  const auto normalized = network
                              ? model::normalize_address_for_screening(*network, resource.address)
                              : resource.address;
  const auto result = decide({resource.mode, resource.address,
                              infra::repositories::blacklist::contains(tx, "address", normalized)},
                             lists);
  const auto limits =
      infra::repositories::spend::effective_limits(tx, payout->org_id, resource.mode);
  const auto trigger = trigger_for(result, *payout, limits);
  payouts::transition(tx, *payout, trigger, {.screening = result});
  count_after_commit("payout", result);
  if (trigger == PayoutTrigger::screening_clear) {
    infra::outbox::enqueue(tx, topics::kPayoutsApproved, payout->org_id, resource.mode,
                           resource.id);
  }
  tx.exec_params("SELECT pg_notify('payout_decisions', $1)", resource.id);
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("screening.decided",
                   {{"payout_id", resource.id},
                    {"trigger", std::string(model::payout_trigger_name(trigger))},
                    {"list_version", result.list_version}});
  return model::ok_status();
}

}  // namespace

HandlerOutcome screen_payout(infra::runtime::WorkerContext& context,
                             const infra::sanctions::SanctionsWatcher& watcher,
                             const topics::Envelope& message) {
  auto started = context.pool.transact(
      [&](pqxx::work& tx) -> model::Result<bool> { return start_screening(tx, message); });
  if (!started.ok()) return infra::runtime::retry_after(started.error(), message.message_id);
  if (!*started) return HandlerOutcome::done;
  const auto lists = watcher.current();
  if (!lists) {
    // Never decide without the sanctions lists: nothing moves until they are loaded.
    return infra::runtime::retry_after(
        model::Error::make(model::ErrorCode::sanctions_unavailable, "sanctions lists not loaded"),
        message.message_id);
  }
  auto decided =
      context.pool.transact([&](pqxx::work& tx) { return record_decision(tx, message, *lists); });
  if (!decided.ok()) return infra::runtime::retry_after(decided.error(), message.message_id);
  return HandlerOutcome::done;
}

}  // namespace payrail::workers::screening
