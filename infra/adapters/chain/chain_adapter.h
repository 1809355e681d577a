// The boundary to a blockchain, in the steps between which the execution and settlement workers
// keep the store (docs/evm.md "Exactly once on chain"): prepare (fees, read from the node outside
// any transaction), sign (local and fast, inside the transaction that allocates the nonce and
// records the signed bytes), send (the recorded bytes, outside any transaction; again on any
// retry), inspect (mined or not, final or not, from the recorded hashes).
//
// Test mode always uses the simulator (no blockchain is ever touched). Live mode uses the adapter
// named by PAYRAIL_CHAIN_ADAPTER; with none configured, live payouts are refused with 503
// provider_unavailable before any funds are held.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/payouts/chain_transaction.h"

namespace payrail::infra::chain {

struct Transfer {
  std::string reference;  // idempotency reference: the payout id
  std::string network;
  std::string asset;
  std::string amount;
  std::string address;
};

// What sending a signed transaction came to. A transport failure is an error (retried), not a
// rejection; a rejection fails the payout with `failure_reason`.
struct SendOutcome {
  bool accepted = false;       // settlement takes it on: a node took it, or below_base_fee
  std::string failure_reason;  // when rejected
  std::optional<std::uint64_t> head_block;  // the node's head when it took (or refused) it (EVM)
  // EVM: the node refused it at once, its max fee below the base fee. Not taken, but stale at once:
  // settlement replaces it at its nonce with the node's current fees (docs/evm.md, replacement).
  bool below_base_fee = false;
};

// What the chain says of the transactions of one nonce.
struct Inspection {
  std::optional<std::string> mined_hash;  // the one mined, if any
  bool succeeded = false;                 // its receipt's status (false: reverted)
  std::uint64_t block_number = 0;
  std::string block_hash;
  bool final = false;  // mined with the network's confirmations
  // None mined, and the latest was taken by a node the network's replace_after_blocks or more
  // blocks ago, or a node refuses it now for a max fee below the base fee: it is to be replaced at
  // the same nonce with higher fees (replace()).
  bool stale = false;
  // None mined, and the latest was taken (or first refused for its fee) twice replace_after_blocks
  // blocks ago or more: when the
  // caps forbid its replacement too, it can never be mined within them, and its nonce is filled
  // (fill_nonce()).
  bool stuck = false;
};

// A transfer the hot wallet must fund before it is signed, and how long its payout has waited.
struct FundingNeed {
  Transfer transfer;
  double waited_s = 0;  // since the payout was created
};
// funded: the wallet holds the amount and the gas (after the needs before it); waiting: not yet
// (the payout waits, retried); given_up: not within the network's funding bound (the payout
// fails with its refund; no nonce was allocated).
enum class Funding { funded, waiting, given_up };

class ChainAdapter {
 public:
  virtual ~ChainAdapter() = default;
  // The account that signs on `network` when the adapter's transactions carry a nonce that the
  // store allocates (EVM): the caller allocates one and records the signed bytes before sending.
  // nullopt when they carry none (the simulator: only the hash means anything).
  virtual std::optional<std::string> sender(std::string_view network) const = 0;
  // The networks prepare() reads fees of (none for the simulator).
  virtual std::vector<std::string> networks() const = 0;
  // Whether each hot wallet can fund `needs` in turn (its token balance and the gas at the
  // prepared fees), outside any transaction; the wallets' balances and the needs waiting are
  // published as metrics.
  virtual model::Result<std::vector<Funding>> check_funding(
      const std::vector<FundingNeed>& needs) = 0;
  // Reads what signing needs (fees) from the network, outside any transaction.
  virtual model::Status prepare(std::string_view network) = 0;
  // Signs the transfer with the fees prepare() read: local and fast (the caller holds a
  // transaction). `nonce` is the store's, when sender() names an account.
  virtual model::Result<model::SignedTransfer> sign(const Transfer& transfer,
                                                    std::optional<std::uint64_t> nonce) = 0;
  // Sends the signed transaction. Idempotent: the same bytes sent again, or found mined, are
  // accepted.
  virtual model::Result<SendOutcome> send(const Transfer& transfer,
                                          const model::SignedTransfer& signed_transfer) = 0;
  // A replacement of `latest` (same nonce, same transfer) with fees raised by at least 10 % on
  // both (geth's rule; nodes refuse less) and at least what prepare() read, within the network's
  // caps: an error when the caps leave no room (provider_unavailable). Local and fast.
  virtual model::Result<model::SignedTransfer> replace(const model::SignedTransfer& latest) = 0;
  // A zero-value self transfer at the nonce of `latest` (kind nonce_filler), which consumes the
  // nonce of a transfer that cannot be mined within the caps: both fees raised by geth's 10 % over
  // `latest`'s, and at least what prepare() read, but never above one such raise of the caps
  // (docs/evm.md). Local and fast. Adapters without nonces have nothing to fill.
  virtual model::Result<model::SignedTransfer> fill_nonce(const model::SignedTransfer& latest) {
    return model::Error::make(model::ErrorCode::provider_unavailable,
                              "no nonce to fill on " + latest.network);
  }
  // What the chain says of a nonce's transactions (the first and its replacements). One the node
  // no longer knows (dropped, undone by a reorg) is sent again: its recorded bytes.
  virtual model::Result<Inspection> inspect(
      std::string_view network, const std::vector<model::SignedTransfer>& transactions) = 0;
};

// The test-mode simulator: an address ending in `0fail` is rejected, anything else is accepted
// with a deterministic hash "0xSIMULATED" + 55 hex characters derived from the reference, final
// at once.
class SimulatedChainAdapter : public ChainAdapter {
 public:
  std::optional<std::string> sender(std::string_view) const override { return std::nullopt; }
  std::vector<std::string> networks() const override { return {}; }
  model::Result<std::vector<Funding>> check_funding(
      const std::vector<FundingNeed>& needs) override {
    return std::vector<Funding>(needs.size(), Funding::funded);
  }
  model::Status prepare(std::string_view) override { return model::ok_status(); }
  model::Result<model::SignedTransfer> sign(const Transfer& transfer,
                                            std::optional<std::uint64_t> nonce) override;
  model::Result<SendOutcome> send(const Transfer& transfer,
                                  const model::SignedTransfer& signed_transfer) override;
  model::Result<Inspection> inspect(
      std::string_view network, const std::vector<model::SignedTransfer>& transactions) override;
  // Never stale: nothing to replace.
  model::Result<model::SignedTransfer> replace(const model::SignedTransfer& latest) override;
};

// Names accepted by PAYRAIL_CHAIN_ADAPTER for live mode: "" (none), "simulated" (staging only:
// live payouts run through the simulator and move no real funds) and "evm" (the six EVM
// networks of PAYRAIL_EVM_NETWORKS_FILE: infra/adapters/chain/evm_chain_adapter.h).
// True when live mode has an adapter (PAYRAIL_CHAIN_ADAPTER names one).
bool live_adapter_configured(std::string_view live_adapter_name);

// The adapter of each mode, created once per worker process.
class ChainAdapters {
 public:
  // `live`: the live adapter when PAYRAIL_CHAIN_ADAPTER names one other than the simulator.
  explicit ChainAdapters(std::string_view live_adapter_name,
                         std::unique_ptr<ChainAdapter> live = nullptr);
  // nullptr when live mode has none configured.
  ChainAdapter* for_mode(model::Mode mode) const;

 private:
  std::unique_ptr<ChainAdapter> test_;
  std::unique_ptr<ChainAdapter> live_;
};

}  // namespace payrail::infra::chain
