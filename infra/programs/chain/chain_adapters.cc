#include "infra/programs/chain/chain_adapters.h"

#include <openssl/crypto.h>

#include <cstdlib>

#include "infra/adapters/chain/evm_chain_adapter.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/store/payouts/evm_transactions.h"

namespace payrail::infra::programs {
namespace {

namespace evm_transactions = store::evm_transactions;

// Each configured network's hot wallet, opened with the data key. The key's bytes are wiped once
// the signer holds them; nothing here logs or returns them.
model::Result<std::map<std::string, std::unique_ptr<evm::Signer>>> open_wallets(
    const Config& config, pg::Pool& pool, const chain::EvmNetworks& networks) {
  auto key = crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                       config.webhook_encryption_key_previous_hex);
  if (!key.ok()) return key.error();
  auto wallets =
      pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<evm_transactions::Wallet>> {
        return evm_transactions::wallets(tx);
      });
  if (!wallets.ok()) return wallets.error();
  std::map<std::string, std::unique_ptr<evm::Signer>> signers;
  for (const auto& wallet : *wallets) {
    if (networks.find(wallet.network) == nullptr) continue;
    auto opened = key->open(wallet.key_sealed);
    if (!opened.ok()) {
      return model::Error::make(
          model::ErrorCode::internal_error,
          "the hot wallet of " + wallet.network + " cannot be opened with the data key");
    }
    auto signer = evm::LocalKeySigner::from_bytes(*opened);
    OPENSSL_cleanse(opened->data(), opened->size());
    if (!signer.ok()) return signer.error();
    if ((*signer)->address().lowercase() != wallet.address) {
      return model::Error::make(
          model::ErrorCode::internal_error,
          "the hot wallet of " + wallet.network + " does not match its recorded address");
    }
    signers[wallet.network] = std::move(*signer);
  }
  return signers;
}

}  // namespace

model::Result<std::unique_ptr<chain::ChainAdapters>> load_chain_adapters(const Config& config,
                                                                         pg::Pool& pool) {
  if (config.chain_adapter != "evm") {
    return std::make_unique<chain::ChainAdapters>(config.chain_adapter);
  }
  auto networks = chain::load_evm_networks(config.evm_networks_file);
  if (!networks.ok()) return networks.error();
  auto signers = open_wallets(config, pool, *networks);
  if (!signers.ok()) return signers.error();
  auto adapter = chain::EvmChainAdapter::create(*networks, std::move(*signers));
  if (!adapter.ok()) return adapter.error();
  if (auto checked = (*adapter)->check_chain_ids(); !checked.ok()) return checked.error();
  for (const auto& network : (*adapter)->networks()) {
    const auto sender = (*adapter)->sender(network);
    if (!sender) {
      log::warn("chain.no_hot_wallet", {{"network", network}});
      continue;
    }
    auto next = (*adapter)->chain_next_nonce(network);
    if (!next.ok()) return next.error();
    auto seeded = pool.transact([&](pqxx::work& tx) -> model::Status {
      evm_transactions::seed_nonce(tx, network, *sender, *next);
      return model::ok_status();
    });
    if (!seeded.ok()) return seeded.error();
    log::info("chain.hot_wallet", {{"network", network}, {"address", *sender}});
    metrics::set_hot_wallet_info(network, *sender);
  }
  return std::make_unique<chain::ChainAdapters>(config.chain_adapter, std::move(*adapter));
}

std::unique_ptr<chain::ChainAdapters> chain_adapters_or_exit(const Config& config, pg::Pool& pool) {
  auto adapters = load_chain_adapters(config, pool);
  if (!adapters.ok()) {
    log::error("chain.start_failed", {{"error", adapters.error().message}});
    std::exit(1);
  }
  return std::move(*adapters);
}

}  // namespace payrail::infra::programs
