// payrail-execution: consumes payouts.approved; signs and broadcasts through the chain adapter
// (test mode: the simulator) and hands accepted broadcasts to settlement.
#include "infra/runtime/worker.h"
#include "workers/execution/execute_payout.h"

int main() {
  using namespace payrail;
  std::unique_ptr<infra::chain::ChainAdapters> adapters;
  return infra::runtime::run_worker(
      "payrail-execution", topics::kPayoutsApproved,
      [&](infra::runtime::WorkerContext& context, const topics::Envelope& message) {
        return workers::execution::execute_payout(context, *adapters, message);
      },
      [&](infra::runtime::WorkerContext& context) {
        adapters = std::make_unique<infra::chain::ChainAdapters>(context.config.chain_adapter);
      });
}
