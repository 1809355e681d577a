// payrail-settlement: consumes payouts.broadcast and completes payouts once confirmed.
#include "infra/runtime/worker.h"
#include "workers/settlement/settle_payout.h"

int main() {
  using namespace payrail;
  std::unique_ptr<infra::chain::ChainAdapters> adapters;
  return infra::runtime::run_worker(
      "payrail-settlement", topics::kPayoutsBroadcast,
      [&](infra::runtime::WorkerContext& context, const topics::Envelope& message) {
        return workers::settlement::settle_payout(context, *adapters, message);
      },
      [&](infra::runtime::WorkerContext& context) {
        adapters = std::make_unique<infra::chain::ChainAdapters>(context.config.chain_adapter);
      });
}
