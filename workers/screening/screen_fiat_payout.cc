#include "workers/screening/screen_fiat_payout.h"

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/blacklist.h"
#include "infra/repositories/fiat_payouts.h"
#include "infra/repositories/spend.h"
#include "workers/screening/decision.h"

namespace payrail::workers::screening {
namespace {

namespace fiat_payouts = infra::repositories::fiat_payouts;
using infra::kafka::HandlerOutcome;
using model::FiatPayoutStatus;
using model::FiatPayoutTrigger;

// Step 1, its own transaction: the payout is visibly `screening` while the decision is made.
// Returns false when there is nothing (more) to do for this message.
model::Result<bool> start_screening(pqxx::work& tx, const topics::Envelope& message) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return false;
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (payout && payout->status == FiatPayoutStatus::pending) {
    payout = fiat_payouts::transition(tx, *payout, FiatPayoutTrigger::start_screening);
  }
  if (!payout || payout->status != FiatPayoutStatus::screening) {
    infra::outbox::mark_consumed(tx, message.message_id);  // cancelled meanwhile, or done
    return false;
  }
  return true;
}

FiatPayoutTrigger trigger_for(const fiat_payouts::ScreeningResult& result,
                              const fiat_payouts::FiatPayoutRow& payout,
                              const model::PayoutLimits& limits) {
  if (result.blocked) return FiatPayoutTrigger::screening_flagged;
  return infra::repositories::spend::within_auto_approval(payout.amount_usd, limits)
             ? FiatPayoutTrigger::screening_clear
             : FiatPayoutTrigger::screening_over_limit;
}

// Step 2: record the decision (a clear one within the auto-approval limit sends the payout on to
// execution), release the hold if blocked, and wake the API request waiting for this decision.
model::Status record_decision(pqxx::work& tx, const topics::Envelope& message,
                              const infra::sanctions::SanctionsLists& lists) {
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != FiatPayoutStatus::screening ||
      infra::outbox::is_consumed(tx, message.message_id)) {
    infra::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = payout->resource;
  const auto blacklisted = infra::repositories::blacklist::contains(
      tx, "name", infra::sanctions::normalize_name(resource.beneficiary_name));
  const auto result =
      decide_beneficiary({resource.mode, resource.beneficiary_name, blacklisted}, lists);
  const auto limits =
      infra::repositories::spend::effective_limits(tx, payout->org_id, resource.mode);
  const auto trigger = trigger_for(result, *payout, limits);
  fiat_payouts::transition(tx, *payout, trigger, {.screening = result});
  count_after_commit("fiat_payout", result);
  if (trigger == FiatPayoutTrigger::screening_clear) {
    infra::outbox::enqueue(tx, topics::kFiatPayoutsApproved, payout->org_id, resource.mode,
                           resource.id);
  }
  // The API's waiters listen on the payouts' channel (api/payout_decisions.h), keyed by id.
  tx.exec_params("SELECT pg_notify('payout_decisions', $1)", resource.id);
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("screening.decided",
                   {{"fiat_payout_id", resource.id},
                    {"trigger", std::string(model::fiat_payout_trigger_name(trigger))},
                    {"list_version", result.list_version}});
  return model::ok_status();
}

}  // namespace

HandlerOutcome screen_fiat_payout(infra::runtime::WorkerContext& context,
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
