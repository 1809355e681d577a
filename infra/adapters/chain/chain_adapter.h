// The boundary to a blockchain: signing and broadcasting a transfer, and confirming it.
//
// Test mode always uses the simulator (no blockchain is ever touched). Live mode uses the adapter
// named by PAYRAIL_CHAIN_ADAPTER; with none configured, live payouts are refused with 503
// provider_unavailable before any funds are held.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::chain {

struct Transfer {
  std::string reference;  // idempotency reference: the payout id
  std::string network;
  std::string asset;
  std::string amount;
  std::string address;
};

struct BroadcastOutcome {
  bool accepted = false;
  std::string tx_hash;         // when accepted
  std::string failure_reason;  // when rejected
};

class ChainAdapter {
 public:
  virtual ~ChainAdapter() = default;
  // MUST be idempotent by `transfer.reference`: a second call with the same reference returns
  // the first outcome and never sends a second transfer (the execution worker may call again
  // after a crash). A transport failure is an error (retried), not a rejection.
  virtual model::Result<BroadcastOutcome> broadcast(const Transfer& transfer) = 0;
  // True once the transaction is final on chain.
  virtual model::Result<bool> confirmed(const Transfer& transfer, const std::string& tx_hash) = 0;
};

// The test-mode simulator: an address ending in `0fail` is rejected, anything else is accepted
// with a deterministic hash "0xSIMULATED" + 55 hex characters derived from the reference.
class SimulatedChainAdapter : public ChainAdapter {
 public:
  model::Result<BroadcastOutcome> broadcast(const Transfer& transfer) override;
  model::Result<bool> confirmed(const Transfer& transfer, const std::string& tx_hash) override;
};

// Names accepted by PAYRAIL_CHAIN_ADAPTER for live mode: "" (none) and "simulated" (staging
// only: live payouts run through the simulator and move no real funds).
// True when live mode has an adapter (PAYRAIL_CHAIN_ADAPTER names one).
bool live_adapter_configured(std::string_view live_adapter_name);

// The adapter of each mode, created once per worker process.
class ChainAdapters {
 public:
  explicit ChainAdapters(std::string_view live_adapter_name);
  // nullptr when live mode has none configured.
  ChainAdapter* for_mode(model::Mode mode) const;

 private:
  std::unique_ptr<ChainAdapter> test_;
  std::unique_ptr<ChainAdapter> live_;
};

}  // namespace payrail::infra::chain
