#include "infra/adapters/chain/chain_adapter.h"

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::chain {

model::Result<model::SignedTransfer> SimulatedChainAdapter::sign(const Transfer& transfer,
                                                                 std::optional<std::uint64_t>) {
  model::SignedTransfer signed_transfer;
  signed_transfer.network = transfer.network;
  signed_transfer.hash = "0xSIMULATED" + crypto::sha256_hex(transfer.reference).substr(0, 55);
  return signed_transfer;
}

model::Result<SendOutcome> SimulatedChainAdapter::send(const Transfer& transfer,
                                                       const model::SignedTransfer&) {
  SendOutcome outcome;
  if (transfer.address.ends_with("0fail")) {
    outcome.failure_reason = "broadcast_rejected: simulated failure for a 0fail test address";
    return outcome;
  }
  outcome.accepted = true;
  return outcome;
}

model::Result<Inspection> SimulatedChainAdapter::inspect(
    std::string_view, const std::vector<model::SignedTransfer>& transactions) {
  Inspection inspection;
  if (transactions.empty()) return inspection;
  inspection.mined_hash = transactions.front().hash;
  inspection.succeeded = true;
  inspection.final = true;
  return inspection;
}

model::Result<model::SignedTransfer> SimulatedChainAdapter::replace(const model::SignedTransfer&) {
  return model::Error::make(model::ErrorCode::internal_error,
                            "the simulator's transfers are final at once");
}

bool live_adapter_configured(std::string_view live_adapter_name) {
  return live_adapter_name == "simulated" || live_adapter_name == "evm";
}

ChainAdapters::ChainAdapters(std::string_view live_adapter_name, std::unique_ptr<ChainAdapter> live)
    : test_(std::make_unique<SimulatedChainAdapter>()), live_(std::move(live)) {
  if (!live_ && live_adapter_name == "simulated") live_ = std::make_unique<SimulatedChainAdapter>();
}

ChainAdapter* ChainAdapters::for_mode(model::Mode mode) const {
  return mode == model::Mode::test ? test_.get() : live_.get();
}

}  // namespace payrail::infra::chain
