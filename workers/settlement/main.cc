// payrail-settlement: consumes payouts.broadcast and completes payouts once confirmed.
#include "infra/runtime/worker.h"
#include "workers/settlement/settle_payout.h"

int main() {
  using namespace payrail;
  std::unique_ptr<infra::chain::ChainAdapter> test_adapter;
  std::unique_ptr<infra::chain::ChainAdapter> live_adapter;
  workers::settlement::Adapters adapters;
  return infra::runtime::run_worker(
      "payrail-settlement", topics::kPayoutsBroadcast,
      [&](infra::runtime::WorkerContext& context, const topics::Envelope& message) {
        return workers::settlement::settle_payout(context, adapters, message);
      },
      [&](infra::runtime::WorkerContext& context) {
        test_adapter = infra::chain::make_adapter(model::Mode::test, "");
        live_adapter = infra::chain::make_adapter(model::Mode::live, context.config.chain_adapter);
        adapters = {test_adapter.get(), live_adapter.get()};
      });
}
