#include "infra/adapters/chain/chain_adapter.h"

#include "infra/plumbing/crypto/crypto.h"

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

bool live_adapter_configured(std::string_view live_adapter_name) {
  return live_adapter_name == "simulated";
}

ChainAdapters::ChainAdapters(std::string_view live_adapter_name)
    : test_(std::make_unique<SimulatedChainAdapter>()) {
  if (live_adapter_configured(live_adapter_name)) live_ = std::make_unique<SimulatedChainAdapter>();
}

ChainAdapter* ChainAdapters::for_mode(model::Mode mode) const {
  return mode == model::Mode::test ? test_.get() : live_.get();
}

}  // namespace payrail::infra::chain
