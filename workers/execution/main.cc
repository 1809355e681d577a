// payrail-execution: consumes payouts.approved; signs and broadcasts through the chain adapter
// (test mode: the simulator) and hands accepted broadcasts to settlement.
#include "infra/runtime/worker.h"
#include "workers/execution/execute_payout.h"

int main() {
  using namespace payrail;
  std::unique_ptr<infra::chain::ChainAdapter> test_adapter;
  std::unique_ptr<infra::chain::ChainAdapter> live_adapter;
  workers::execution::Adapters adapters;
  return infra::runtime::run_worker(
      "payrail-execution", topics::kPayoutsApproved,
      [&](infra::runtime::WorkerContext& context, const topics::Envelope& message) {
        return workers::execution::execute_payout(context, adapters, message);
      },
      [&](infra::runtime::WorkerContext& context) {
        test_adapter = infra::chain::make_adapter(model::Mode::test, "");
        live_adapter = infra::chain::make_adapter(model::Mode::live, context.config.chain_adapter);
        adapters = {test_adapter.get(), live_adapter.get()};
      });
}
