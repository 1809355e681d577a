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
using model::FiatPayoutStatus;
using model::FiatPayoutTrigger;

// pending -> screening; the payout, locked, or nothing when there is nothing (more) to do.
std::optional<fiat_payouts::FiatPayoutRow> start_screening(pqxx::work& tx,
                                                           const topics::Envelope& message) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return std::nullopt;
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (payout && payout->status == FiatPayoutStatus::pending) {
    payout = fiat_payouts::transition(tx, *payout, FiatPayoutTrigger::start_screening);
  }
  if (!payout || payout->status != FiatPayoutStatus::screening) {
    infra::outbox::mark_consumed(tx, message.message_id);  // cancelled meanwhile, or done
    return std::nullopt;
  }
  return payout;
}

FiatPayoutTrigger trigger_for(const fiat_payouts::ScreeningResult& result,
                              const fiat_payouts::FiatPayoutRow& payout,
                              const model::PayoutLimits& limits) {
  if (result.blocked) return FiatPayoutTrigger::screening_flagged;
  return infra::repositories::spend::within_auto_approval(payout.amount_usd, limits)
             ? FiatPayoutTrigger::screening_clear
             : FiatPayoutTrigger::screening_over_limit;
}

// Records the decision (a clear one within the auto-approval limit sends the payout on to
// execution), release the hold if blocked, and wake the API request waiting for this decision.
model::Status record_decision(pqxx::work& tx, const topics::Envelope& message,
                              const fiat_payouts::FiatPayoutRow& payout,
                              const infra::sanctions::SanctionsLists& lists) {
  const auto& resource = payout.resource;
  const auto blacklisted = infra::repositories::blacklist::contains(
      tx, "name", infra::sanctions::normalize_name(resource.beneficiary_name));
  const auto result =
      decide_beneficiary({resource.mode, resource.beneficiary_name, blacklisted}, lists);
  const auto limits =
      infra::repositories::spend::effective_limits(tx, payout.org_id, resource.mode);
  const auto trigger = trigger_for(result, payout, limits);
  fiat_payouts::transition(tx, payout, trigger, {.screening = result});
  count_after_commit("fiat_payout", result);
  if (trigger == FiatPayoutTrigger::screening_clear) {
    infra::outbox::enqueue(tx, topics::kFiatPayoutsApproved, payout.org_id, resource.mode,
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

model::Status screen_fiat_payout(pqxx::work& tx, const infra::sanctions::SanctionsLists* lists,
                                 const topics::Envelope& message) {
  const auto payout = start_screening(tx, message);
  if (!payout || lists == nullptr) return model::ok_status();
  return record_decision(tx, message, *payout, *lists);
}

}  // namespace payrail::workers::screening
