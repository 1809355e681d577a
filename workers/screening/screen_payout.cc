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
using model::PayoutStatus;
using model::PayoutTrigger;

// pending -> screening; the payout, locked, or nothing when there is nothing (more) to do.
std::optional<payouts::PayoutRow> start_screening(pqxx::work& tx, const topics::Envelope& message) {
  if (infra::outbox::is_consumed(tx, message.message_id)) return std::nullopt;
  auto payout = payouts::lock(tx, message.resource_id);
  if (payout && payout->status == PayoutStatus::pending) {
    payout = payouts::transition(tx, *payout, PayoutTrigger::start_screening);
  }
  if (!payout || payout->status != PayoutStatus::screening) {
    infra::outbox::mark_consumed(tx, message.message_id);  // cancelled meanwhile, or done
    return std::nullopt;
  }
  return payout;
}

PayoutTrigger trigger_for(const payouts::ScreeningResult& result, const payouts::PayoutRow& payout,
                          const model::PayoutLimits& limits) {
  if (result.blocked) return PayoutTrigger::screening_flagged;
  return infra::repositories::spend::within_auto_approval(payout.amount_usd, limits)
             ? PayoutTrigger::screening_clear
             : PayoutTrigger::screening_over_limit;
}

// Records the decision, release the hold if blocked, hand approved payouts to execution,
// and wake the API request waiting for this decision.
model::Status record_decision(pqxx::work& tx, const topics::Envelope& message,
                              const payouts::PayoutRow& payout,
                              const infra::sanctions::SanctionsLists& lists) {
  const auto& resource = payout.resource;
  const auto network = model::parse_network(resource.network);
  const auto normalized = network
                              ? model::normalize_address_for_screening(*network, resource.address)
                              : resource.address;
  const auto result = decide({resource.mode, resource.address,
                              infra::repositories::blacklist::contains(tx, "address", normalized)},
                             lists);
  const auto limits =
      infra::repositories::spend::effective_limits(tx, payout.org_id, resource.mode);
  const auto trigger = trigger_for(result, payout, limits);
  payouts::transition(tx, payout, trigger, {.screening = result});
  count_after_commit("payout", result);
  if (trigger == PayoutTrigger::screening_clear) {
    infra::outbox::enqueue(tx, topics::kPayoutsApproved, payout.org_id, resource.mode, resource.id);
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

model::Status screen_payout(pqxx::work& tx, const infra::sanctions::SanctionsLists* lists,
                            const topics::Envelope& message) {
  const auto payout = start_screening(tx, message);
  if (!payout || lists == nullptr) return model::ok_status();
  return record_decision(tx, message, *payout, *lists);
}

}  // namespace payrail::workers::screening
