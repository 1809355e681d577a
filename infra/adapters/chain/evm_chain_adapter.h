// The live chain adapter of the six EVM networks (PAYRAIL_CHAIN_ADAPTER=evm): EIP-1559 transfers
// of ETH or an ERC-20 token signed by each network's hot wallet (infra/adapters/evm/), sent and
// inspected through the network's nodes. It keeps nothing itself: the nonce, the signed bytes and
// every hash are the store's (infra/store/payouts/evm_transactions.h), kept by the workers that
// compose both.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "infra/adapters/chain/chain_adapter.h"
#include "infra/adapters/chain/evm_networks.h"
#include "infra/adapters/evm/node.h"
#include "infra/adapters/evm/signer.h"
#include "infra/adapters/evm/transaction.h"

namespace payrail::infra::chain {

class EvmChainAdapter final : public ChainAdapter {
 public:
  // `signers`: each network's hot wallet, by network name; a network without one has no sender
  // (its payouts wait, retried, until a wallet exists and the process restarts).
  static model::Result<std::unique_ptr<EvmChainAdapter>> create(
      EvmNetworks networks, std::map<std::string, std::unique_ptr<evm::Signer>> signers,
      evm::RpcOptions rpc_options = {});

  // The start's check: each network's node answers the configured chain id. The error names the
  // network (the process stops on it).
  model::Status check_chain_ids();
  // The chain's next nonce of the network's hot wallet (pending transactions counted): what the
  // store's nonce is seeded with at start.
  model::Result<std::uint64_t> chain_next_nonce(std::string_view network);

  std::optional<std::string> sender(std::string_view network) const override;
  std::vector<std::string> networks() const override;
  model::Result<std::vector<Funding>> check_funding(const std::vector<FundingNeed>& needs) override;
  model::Status prepare(std::string_view network) override;
  model::Result<model::SignedTransfer> sign(const Transfer& transfer,
                                            std::optional<std::uint64_t> nonce) override;
  model::Result<SendOutcome> send(const Transfer& transfer,
                                  const model::SignedTransfer& signed_transfer) override;
  model::Result<Inspection> inspect(
      std::string_view network, const std::vector<model::SignedTransfer>& transactions) override;
  model::Result<model::SignedTransfer> replace(const model::SignedTransfer& latest) override;
  model::Result<model::SignedTransfer> fill_nonce(const model::SignedTransfer& latest) override;

 private:
  struct Chain {
    EvmNetwork config;
    std::unique_ptr<evm::Node> node;
    std::unique_ptr<evm::Signer> signer;  // nullptr: no hot wallet on this network
    std::optional<evm::Fees> fees;        // what prepare() read last (under fees_mutex_)
  };
  EvmChainAdapter() = default;
  Chain* chain(std::string_view network);
  const Chain* chain(std::string_view network) const;
  model::Result<model::SignedTransfer> sign_transaction(const Chain& chain,
                                                        const evm::Transaction& transaction,
                                                        model::ChainTransactionKind kind) const;
  model::Result<evm::Transaction> recorded_transaction(const model::SignedTransfer& latest) const;
  std::optional<evm::Fees> prepared_fees(const Chain& chain) const;
  model::Result<evm::Transaction> transaction_of(const Chain& chain, const Transfer& transfer,
                                                 std::uint64_t nonce, const evm::Fees& fees) const;

  std::map<std::string, Chain, std::less<>> chains_;
  mutable std::mutex fees_mutex_;
};

}  // namespace payrail::infra::chain
