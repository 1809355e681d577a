// payrail-settlement: completes stablecoin payouts once confirmed (payouts.broadcast), completes
// or fails (with a refund) each fiat payout on the payout partner's result (fiat_payouts.sent),
// applies collection providers' notifications (collections.provider_events) and settles received
// collections to USDC (collections.received), in one consumer group.
#include "infra/plumbing/log/log.h"
#include "infra/programs/chain/chain_adapters.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/payouts/payouts.h"
#include "workers/settlement/apply_provider_event.h"
#include "workers/settlement/settle_collection.h"
#include "workers/settlement/settle_fiat_payout.h"
#include "workers/settlement/settle_payout.h"

int main() {
  using namespace payrail;
  using infra::runtime::Batch;
  using infra::runtime::each_message;
  using infra::runtime::WorkerContext;
  std::unique_ptr<infra::chain::ChainAdapters> adapters;
  std::unique_ptr<infra::partners::PayoutPartners> partners;
  std::optional<infra::crypto::DataKey> data_key;
  std::unique_ptr<infra::rates::RateSources> rates;
  return infra::runtime::run_worker(
      "payrail-settlement",
      {{&topics::kPayoutsBroadcast,
        [&](WorkerContext& context, Batch& batch) {
          workers::settlement::settle_payouts(context, *adapters, batch);
        },
        infra::runtime::lock_resources<infra::store::payouts::lock_all>},
       {&topics::kFiatPayoutsSent,
        [&](WorkerContext& context, Batch& batch) {
          workers::settlement::settle_fiat_payouts(context, *partners,
                                                   data_key ? &*data_key : nullptr, batch);
        },
        infra::runtime::lock_resources<infra::store::fiat_payouts::lock_all>},
       {&topics::kCollectionProviderEvents,
        each_message(workers::settlement::apply_provider_event)},
       {&topics::kCollectionsReceived,
        each_message([&](WorkerContext&, pqxx::work& tx, const topics::Envelope& message) {
          return workers::settlement::settle_collection(*rates, tx, message);
        })}},
      [&](WorkerContext& context) {
        adapters = infra::programs::chain_adapters_or_exit(context.config, context.pool);
        partners = std::make_unique<infra::partners::PayoutPartners>(context.config.payout_partner);
        rates = std::make_unique<infra::rates::RateSources>(context.config.rate_source);
        auto key =
            infra::crypto::DataKey::from_hex(context.config.webhook_encryption_key_hex,
                                             context.config.webhook_encryption_key_previous_hex);
        if (key.ok()) {
          data_key = std::move(*key);
        } else {
          // Fiat payouts wait (retried) until the process runs with a valid key.
          infra::log::error("settlement.data_key_invalid", {{"error", key.error().message}});
        }
      });
}
