#include "workers/settlement/settle_fiat_payout.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/outbox/outbox.h"
#include "schemas/model/common/invariant.h"
#include "workers/settlement/apply_when_due.h"

namespace payrail::workers::settlement {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;
using infra::partners::Delivery;

struct Settlement {
  infra::partners::PayoutPartner* partner;
  const infra::crypto::DataKey* data_key;
};

// Asks the partner (under the payout's lock) and applies a final result. The status decides, not
// the consumed mark: a result applied before moved the payout out of processing.
model::Status apply_result(pqxx::work& tx, const Settlement& settlement,
                           const topics::Envelope& message) {
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != model::FiatPayoutStatus::processing ||
      payout->partner_outcome != "accepted" || !payout->resource.tracking) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
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
    // Not the message's failure: asked again (not counted) until the partner has a result.
    return model::Error::make(model::ErrorCode::service_unavailable, "partner result pending");
  }
  const bool credited = result->delivery == Delivery::credited;
  const auto decided = fiat_payouts::transition(
      tx, *payout,
      credited ? model::FiatPayoutTrigger::partner_credited
               : model::FiatPayoutTrigger::partner_failed,
      {.failure_reason =
           credited ? std::nullopt : std::optional<std::string>(result->failure_reason)});
  model::invariant(decided.has_value(), "a processing fiat payout takes the partner's result");
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("settlement.fiat_result", {{"fiat_payout_id", resource.id},
                                              {"result", credited ? "credited" : "returned"}});
  return model::ok_status();
}

}  // namespace

void settle_fiat_payouts(infra::runtime::WorkerContext& context,
                         const infra::partners::PayoutPartners& partners,
                         const infra::crypto::DataKey* data_key, infra::runtime::Batch& batch) {
  const long delay_ms = context.config.fiat_settlement_delay_ms;
  const auto remaining_ms = [&](pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
    return fiat_payouts::remaining_delays_ms(tx, ids, delay_ms);
  };
  apply_when_due(context, batch, delay_ms, remaining_ms, [&](pqxx::work& tx, std::size_t i) {
    const auto& message = batch.message(i);
    auto* partner = partners.for_mode(message.mode);
    if (partner == nullptr || data_key == nullptr) {
      return model::Status(
          model::Error::make(model::ErrorCode::provider_unavailable,
                             partner == nullptr ? "no live payout partner" : "no data key"));
    }
    return apply_result(tx, {partner, data_key}, message);
  });
}

}  // namespace payrail::workers::settlement
