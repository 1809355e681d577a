#include "workers/execution/execute_fiat_payout.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/outbox/outbox.h"
#include "schemas/model/common/invariant.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::workers::execution {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;
using model::FiatPayoutStatus;

// Step 1: the payout to send, or nullopt when there is nothing (more) to do for this message.
// The status decides: a message applied before finds the payout past processing or its
// partner's outcome recorded.
std::optional<fiat_payouts::FiatPayoutRow> begin_send(pqxx::work& tx,
                                                      const topics::Envelope& message) {
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != FiatPayoutStatus::processing || payout->partner_outcome) {
    infra::store::outbox::mark_consumed(tx, message.message_id);  // cancelled, or sent already
    return std::nullopt;
  }
  return payout;
}

// Step 2: record the partner's answer; a refusal fails the payout (refund, fiat_payout.failed),
// an accepted payout goes to settlement. The recorded outcome decides, not the consumed mark: it
// is written only here, with the failure or the settlement message.
model::Status finish_send(pqxx::work& tx, const topics::Envelope& message,
                          const infra::partners::SendOutcome& outcome) {
  auto payout = fiat_payouts::lock(tx, message.resource_id);
  if (!payout || payout->status != FiatPayoutStatus::processing || payout->partner_outcome) {
    infra::store::outbox::mark_consumed(tx, message.message_id);
    return model::ok_status();
  }
  const auto& resource = payout->resource;
  const auto* method = model::find_payout_method(resource.country, payout->account_type);
  if (method == nullptr) {
    return model::Error::make(
        model::ErrorCode::internal_error,
        "no payout method " + payout->account_type + " for " + resource.country);
  }
  const auto after = fiat_payouts::record_send(
      tx, *payout, outcome.accepted, outcome.partner_reference, method->typical_settlement_minutes);
  if (after.partner_outcome == "rejected") {
    const auto failed = fiat_payouts::transition(tx, after, model::FiatPayoutTrigger::partner_failed,
                                                 {.failure_reason = outcome.failure_reason});
    model::invariant(failed.has_value(), "a fiat payout being sent (processing) can fail");
  } else {
    infra::store::outbox::enqueue(tx, topics::kFiatPayoutsSent, after.org_id, resource.mode,
                                  resource.id);
  }
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("execution.sent",
                   {{"fiat_payout_id", resource.id}, {"outcome", *after.partner_outcome}});
  return model::ok_status();
}

model::Result<infra::partners::PartnerPayout> partner_payout_of(
    const fiat_payouts::FiatPayoutRow& payout, const infra::crypto::DataKey& data_key) {
  auto account = data_key.open(payout.account_sealed);
  if (!account.ok()) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "the sealed account cannot be opened with the configured data key");
  }
  const auto& resource = payout.resource;
  return infra::partners::PartnerPayout{
      resource.id,     resource.country,          resource.currency,
      resource.amount, resource.beneficiary_name, std::move(*account)};
}

model::Result<infra::partners::SendOutcome> send_once(
    const infra::partners::PayoutPartners& partners, const infra::crypto::DataKey* data_key,
    const fiat_payouts::FiatPayoutRow& payout) {
  auto* partner = partners.for_mode(payout.resource.mode);
  if (partner == nullptr || data_key == nullptr) {
    return model::Error::make(model::ErrorCode::provider_unavailable,
                              partner == nullptr ? "no live payout partner" : "no data key");
  }
  auto request = partner_payout_of(payout, *data_key);
  if (!request.ok()) return request.error();
  return partner->send(*request);
}

}  // namespace

void execute_fiat_payouts(infra::runtime::WorkerContext& context,
                          const infra::partners::PayoutPartners& partners,
                          const infra::crypto::DataKey* data_key, infra::runtime::Batch& batch) {
  infra::runtime::apply_around_call<fiat_payouts::FiatPayoutRow, infra::partners::SendOutcome>(
      context, batch, begin_send,
      [&](const fiat_payouts::FiatPayoutRow& payout) {
        return send_once(partners, data_key, payout);
      },
      finish_send);
}

}  // namespace payrail::workers::execution
