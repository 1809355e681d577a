#include "infra/chain/chain_adapter.h"

#include "infra/crypto/crypto.h"

namespace payrail::infra::chain {

model::Result<BroadcastOutcome> SimulatedChainAdapter::broadcast(const Transfer& transfer) {
  BroadcastOutcome outcome;
  if (transfer.address.ends_with("0fail")) {
    outcome.failure_reason = "broadcast_rejected: simulated failure for a 0fail test address";
    return outcome;
  }
  outcome.accepted = true;
  outcome.tx_hash = "0xSIMULATED" + crypto::sha256_hex(transfer.reference).substr(0, 55);
  return outcome;
}

model::Result<bool> SimulatedChainAdapter::confirmed(const Transfer&, const std::string&) {
  return true;
}

bool is_known_adapter_name(std::string_view name) {
  return name.empty() || name == "simulated";
}

std::unique_ptr<ChainAdapter> make_adapter(model::Mode mode, std::string_view live_adapter_name) {
  if (mode == model::Mode::test || live_adapter_name == "simulated") {
    return std::make_unique<SimulatedChainAdapter>();
  }
  return nullptr;
}

}  // namespace payrail::infra::chain
