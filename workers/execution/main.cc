// payrail-execution: consumes payouts.approved, signs and broadcasts through the chain adapter
// (test mode: the simulator) and hands accepted broadcasts to settlement; and
// fiat_payouts.approved, sending each fiat payout to the payout partner (test mode: the
// simulator) and handing accepted ones to settlement.
#include "infra/plumbing/log/log.h"
#include "infra/programs/chain/chain_adapters.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/payouts/payouts.h"
#include "workers/execution/execute_fiat_payout.h"
#include "workers/execution/execute_payout.h"

int main() {
  using namespace payrail;
  using infra::runtime::WorkerContext;
  std::unique_ptr<infra::chain::ChainAdapters> adapters;
  std::unique_ptr<infra::partners::PayoutPartners> partners;
  std::optional<infra::crypto::DataKey> data_key;
  return infra::runtime::run_worker(
      "payrail-execution",
      {{&topics::kPayoutsApproved,
        [&](WorkerContext& context, infra::runtime::Batch& batch) {
          workers::execution::execute_payouts(context, *adapters, batch);
        },
        workers::execution::lock_batch},
       {&topics::kFiatPayoutsApproved,
        [&](WorkerContext& context, infra::runtime::Batch& batch) {
          workers::execution::execute_fiat_payouts(context, *partners,
                                                   data_key ? &*data_key : nullptr, batch);
        },
        infra::runtime::lock_resources<infra::store::fiat_payouts::lock_all>}},
      [&](WorkerContext& context) {
        adapters = infra::programs::chain_adapters_or_exit(context.config, context.pool);
        partners = std::make_unique<infra::partners::PayoutPartners>(context.config.payout_partner);
        auto key =
            infra::crypto::DataKey::from_hex(context.config.webhook_encryption_key_hex,
                                             context.config.webhook_encryption_key_previous_hex);
        if (key.ok()) {
          data_key = std::move(*key);
        } else {
          // Fiat payouts wait (retried) until the process runs with a valid key.
          infra::log::error("execution.data_key_invalid", {{"error", key.error().message}});
        }
      });
}
