#include "workers/settlement/settle_fiat_payout.h"

#include <thread>

#include "infra/log/log.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/fiat_payouts.h"

namespace payrail::workers::settlement {
namespace {

namespace fiat_payouts = infra::repositories::fiat_payouts;
using infra::kafka::HandlerOutcome;
using infra::partners::Delivery;

// How long until the partner's result is due; 0 when due or nothing to wait for.
model::Result<long> delay_remaining_ms(infra::runtime::WorkerContext& context,
                                       const topics::Envelope& message) {
  return context.pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return fiat_payouts::remaining_delay_ms(tx, message.resource_id,
                                            context.config.fiat_settlement_delay_ms);
  });
}

struct Settlement {
  infra::partners::PayoutPartner* partner;
  const infra::crypto::DataKey* data_key;
};

// Asks the partner (under the payout's lock) and applies a final result.
model::Status apply_result(pqxx::work& tx, const Settlement& settlement,
                           const topics::Envelope& message, bool& still_pending) {
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != model::FiatPayoutStatus::processing ||
      payout->partner_outcome != "accepted" || !payout->resource.tracking ||
      infra::outbox::is_consumed(tx, message.message_id)) {
    infra::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = payout->resource;
  auto account = settlement.data_key->open(payout->account_sealed);
  if (!account.ok()) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "the sealed account cannot be opened with the configured data key");
  }
  auto result =
      settlement.partner->result({resource.id, resource.country, resource.currency, resource.amount,
                                  resource.beneficiary_name, std::move(*account)},
                                 resource.tracking->reference);
  if (!result.ok()) return result.error();
  if (result->delivery == Delivery::pending) {
    still_pending = true;
    return model::ok_status();
  }
  const bool credited = result->delivery == Delivery::credited;
  fiat_payouts::transition(
      tx, *payout,
      credited ? model::FiatPayoutTrigger::partner_credited
               : model::FiatPayoutTrigger::partner_failed,
      {.failure_reason =
           credited ? std::nullopt : std::optional<std::string>(result->failure_reason)});
  infra::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.fiat_result", {{"fiat_payout_id", resource.id},
                                              {"result", credited ? "credited" : "returned"}});
  return model::ok_status();
}

}  // namespace

HandlerOutcome settle_fiat_payout(infra::runtime::WorkerContext& context,
                                  const infra::partners::PayoutPartners& partners,
                                  const infra::crypto::DataKey* data_key,
                                  const topics::Envelope& message) {
  auto remaining = delay_remaining_ms(context, message);
  if (!remaining.ok()) return infra::runtime::retry_after(remaining.error(), message.message_id);
  const long wait_ms = std::min<long>(*remaining, context.config.fiat_settlement_delay_ms);
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  auto* partner = partners.for_mode(message.mode);
  if (partner == nullptr || data_key == nullptr) {
    return infra::runtime::retry_after(
        model::Error::make(model::ErrorCode::provider_unavailable,
                           partner == nullptr ? "no live payout partner" : "no data key"),
        message.message_id);
  }
  bool still_pending = false;
  auto settled = context.pool.transact([&](pqxx::work& tx) {
    return apply_result(tx, {partner, data_key}, message, still_pending);
  });
  if (!settled.ok()) return infra::runtime::retry_after(settled.error(), message.message_id);
  if (still_pending) {
    return infra::runtime::retry_after(
        model::Error::make(model::ErrorCode::service_unavailable, "partner result pending"),
        message.message_id);
  }
  return HandlerOutcome::done;
}

}  // namespace payrail::workers::settlement
