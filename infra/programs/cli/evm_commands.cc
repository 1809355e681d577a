// EVM hot-wallet commands (docs/evm.md "Configuration"): create or import a network's hot
// wallet, its key sealed with the data key at once (never printed, never an argument: an import
// reads it from a file), list the wallets' addresses, and read an address's balance from the
// network's node (a recipient's, after a payout).
#include <openssl/crypto.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "infra/adapters/chain/evm_networks.h"
#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/node.h"
#include "infra/adapters/evm/signer.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/payouts/evm_transactions.h"

namespace payrail::infra::cli {
namespace {

namespace evm_transactions = store::evm_transactions;

// The key to import: 64 hex digits (an optional 0x) from a file, or a new random one.
model::Result<std::string> wallet_key(const Options& options) {
  const auto key_file = option(options, "key-file");
  if (!key_file) {
    for (;;) {  // a random 256-bit value is a valid key but for a negligible few
      auto key = crypto::random_bytes(32);
      if (evm::LocalKeySigner::from_bytes(key).ok()) return key;
    }
  }
  std::ifstream file(*key_file);
  if (!file) return model::bad_request("--key-file cannot be read", "key-file");
  std::string text;
  file >> text;
  if (text.starts_with("0x")) text.erase(0, 2);
  auto key = crypto::hex_decode(text);
  OPENSSL_cleanse(text.data(), text.size());
  if (!key || key->size() != 32) {
    return model::bad_request("--key-file must hold a private key of 64 hex digits", "key-file");
  }
  return *key;
}

int evm_wallet_create(const Config& config, const Options& options) {
  const auto network = option(options, "network");
  if (!network) return fail("--network is required");
  if (!chain::is_evm_network(*network)) {
    return fail(
        "--network must be an EVM network (polygon, arbitrum, optimism, base, bsc, ethereum)");
  }
  auto data_key = crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                            config.webhook_encryption_key_previous_hex);
  if (!data_key.ok()) return fail(data_key.error().message);
  auto key = wallet_key(options);
  if (!key.ok()) return fail(key.error().message);
  auto signer = evm::LocalKeySigner::from_bytes(*key);
  auto sealed = data_key->seal(*key);
  OPENSSL_cleanse(key->data(), key->size());
  if (!signer.ok()) return fail("the key is not a valid secp256k1 private key");
  if (!sealed.ok()) return fail(sealed.error().message);
  const auto address = (*signer)->address().lowercase();
  auto pool = open_pool(config);
  const auto created = pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return evm_transactions::create_wallet(tx, {*network, address, *sealed});
  });
  if (!created.ok()) return fail(created.error().message);
  if (!*created) return fail(*network + " has a hot wallet already (payrail evm-wallets)");
  std::printf("%s %s\n", network->c_str(), (*signer)->address().checksummed().c_str());
  return 0;
}

int evm_wallets(const Config& config, const Options&) {
  auto pool = open_pool(config);
  const auto wallets =
      pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<evm_transactions::Wallet>> {
        return evm_transactions::wallets(tx);
      });
  if (!wallets.ok()) return fail(wallets.error().message);
  for (const auto& wallet : *wallets) {
    const auto address = evm::parse_address(wallet.address);
    std::printf("%s %s\n", wallet.network.c_str(),
                address ? address->checksummed().c_str() : wallet.address.c_str());
  }
  return 0;
}

int evm_balance(const Config& config, const Options& options) {
  const auto network_name = option(options, "network");
  const auto asset = option(options, "asset");
  const auto address_text = option(options, "address");
  if (!network_name || !asset || !address_text) {
    return fail("--network, --asset and --address are required");
  }
  const auto address = evm::parse_address(*address_text);
  if (!address) return fail("--address is not an EVM address");
  if (config.evm_networks_file.empty()) return fail("PAYRAIL_EVM_NETWORKS_FILE is not set");
  auto networks = chain::load_evm_networks(config.evm_networks_file);
  if (!networks.ok()) return fail(networks.error().message);
  const auto* network = networks->find(*network_name);
  if (network == nullptr) return fail(*network_name + " is not in PAYRAIL_EVM_NETWORKS_FILE");
  auto client = evm::JsonRpcClient::create(network->rpc_urls);
  if (!client.ok()) return fail(client.error().message);
  evm::Node node(std::move(*client));
  int decimals = 18;
  evm::RpcResult<evm::U256> balance = evm::U256();
  if (*asset == "ETH") {
    balance = node.balance(*address, evm::kLatest);
  } else {
    const auto token = network->tokens.find(*asset);
    if (token == network->tokens.end())
      return fail(*asset + " is not configured on " + *network_name);
    decimals = token->second.decimals;
    balance = node.token_balance(token->second.contract, *address, evm::kLatest);
  }
  if (!balance.ok()) return fail(balance.error().message);
  std::printf("%s\n", evm::abi::from_base_units(*balance, decimals).c_str());
  return 0;
}

}  // namespace

void add_evm_commands(CommandTable& table) {
  table["evm-wallet-create"] = {
      "evm-wallet-create --network <polygon|arbitrum|optimism|base|bsc|ethereum> "
      "[--key-file <file>]",
      "create the network's hot wallet (or import the key in the file), its key sealed with "
      "PAYRAIL_WEBHOOK_ENCRYPTION_KEY; prints its address",
      evm_wallet_create};
  table["evm-wallets"] = {"evm-wallets", "each network's hot-wallet address", evm_wallets};
  table["evm-balance"] = {
      "evm-balance --network <network> --asset <USDC|USDT|ETH> --address <0x...>",
      "an address's balance read from the network's node (PAYRAIL_EVM_NETWORKS_FILE)", evm_balance};
}

}  // namespace payrail::infra::cli
