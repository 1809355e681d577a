// EVM hot-wallet commands (docs/evm.md "Configuration"): create or import a network's hot
// wallet, its key sealed with the data key at once (never printed, never an argument: an import
// reads it from a file), list the wallets' addresses, and read an address's balance from the
// network's node (a recipient's, after a payout).
#include <openssl/crypto.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "infra/adapters/chain/evm_networks.h"
#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/contracts.h"
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

// anvil's first dev account (its well-known test mnemonic): the deployer of the local chain's
// tokens. Public test funds on a chain of this machine only, never a key of a real network.
constexpr std::string_view kLocalChainDeployerKey =
    "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr long kLocalChainTimeoutMs = 30000;
constexpr std::string_view kLocalNetworks[] = {"polygon", "arbitrum", "optimism",
                                               "base",    "bsc",      "ethereum"};

struct LocalToken {
  std::string asset;
  evm::Address contract;
  int decimals = 6;
};

// The network's hot wallet: the one recorded, else a new one (its key sealed at once).
model::Result<evm::Address> local_wallet(pg::Pool& pool, const crypto::DataKey& data_key,
                                         const std::string& network) {
  auto wallets =
      pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<evm_transactions::Wallet>> {
        return evm_transactions::wallets(tx);
      });
  if (!wallets.ok()) return wallets.error();
  for (const auto& wallet : *wallets) {
    if (wallet.network == network) return *evm::parse_address(wallet.address);
  }
  auto key = wallet_key({});
  if (!key.ok()) return key.error();
  auto signer = evm::LocalKeySigner::from_bytes(*key);
  auto sealed = data_key.seal(*key);
  OPENSSL_cleanse(key->data(), key->size());
  if (!signer.ok()) return signer.error();
  if (!sealed.ok()) return sealed.error();
  const auto address = (*signer)->address();
  auto created = pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return evm_transactions::create_wallet(tx, {network, address.lowercase(), *sealed});
  });
  if (!created.ok()) return created.error();
  return address;
}

model::Status mint(evm::Node& node, const evm::Signer& deployer, const LocalToken& token,
                   const evm::Address& to, std::string_view amount) {
  evm::Transaction call;
  call.to = token.contract;
  call.data = evm::token_mint_call(to, *evm::abi::to_base_units(amount, token.decimals));
  auto receipt = evm::send_and_wait(node, deployer, call, kLocalChainTimeoutMs);
  if (!receipt.ok()) return receipt.error();
  if (!receipt->succeeded)
    return model::Error::make(model::ErrorCode::internal_error, "mint reverted");
  return model::ok_status();
}

std::string local_network_json(std::string_view network, std::uint64_t chain_id,
                               const std::string& rpc_url, const std::vector<LocalToken>& tokens) {
  std::string json = "  \"" + std::string(network) +
                     "\": {\"chain_id\": " + std::to_string(chain_id) + ", \"rpc_urls\": [\"" +
                     rpc_url +
                     "\"], \"confirmations\": 1, \"max_fee_per_gas_cap_wei\": \"500000000000\", "
                     "\"max_priority_fee_per_gas_cap_wei\": \"50000000000\", \"tokens\": {";
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    json += (i == 0 ? "" : ", ") +
            ("\"" + tokens[i].asset + "\": {\"address\": \"" + tokens[i].contract.checksummed() +
             "\", \"decimals\": " + std::to_string(tokens[i].decimals) + "}");
  }
  return json + "}}";
}

// infra/up --chain: on a local anvil standing in for the six networks, deploys the project's token
// as USDC and USDT (6 decimals; 18 for bsc's pair), gives each network a hot wallet (kept across
// runs, its key sealed), funds each with 1,000,000 of its tokens and 1000 ETH, sets its nonce to
// the new chain's, and writes the networks file.
int evm_local_chain(const Config& config, const Options& options) {
  const auto rpc_url = option(options, "rpc-url");
  const auto out = option(options, "out");
  if (!rpc_url || !out) return fail("--rpc-url and --out are required");
  auto client = evm::JsonRpcClient::create({*rpc_url});
  if (!client.ok()) return fail(client.error().message);
  evm::Node node(std::move(*client));
  const auto chain_id = node.chain_id();
  if (!chain_id.ok()) return fail("the local chain does not answer: " + chain_id.error().message);
  auto data_key = crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                            config.webhook_encryption_key_previous_hex);
  if (!data_key.ok()) return fail(data_key.error().message);
  const auto deployer =
      evm::LocalKeySigner::from_bytes(*crypto::hex_decode(std::string(kLocalChainDeployerKey)));
  if (!deployer.ok()) return fail(deployer.error().message);
  std::map<int, std::vector<LocalToken>> tokens;  // by decimals
  for (const int decimals : {6, 18}) {
    for (const auto* asset : {"USDC", "USDT"}) {
      auto contract = evm::deploy_contract(node, **deployer, evm::token_creation_code(),
                                           evm::token_constructor_arguments(asset, asset, decimals),
                                           kLocalChainTimeoutMs);
      if (!contract.ok())
        return fail("deploying " + std::string(asset) + ": " + contract.error().message);
      tokens[decimals].push_back({asset, *contract, decimals});
    }
  }
  auto pool = open_pool(config);
  std::string json = "{\n";
  for (const auto network : kLocalNetworks) {
    const auto& network_tokens = tokens[network == "bsc" ? 18 : 6];
    auto address = local_wallet(pool, *data_key, std::string(network));
    if (!address.ok()) return fail(address.error().message);
    for (const auto& token : network_tokens) {
      if (auto minted = mint(node, **deployer, token, *address, "1000000"); !minted.ok()) {
        return fail(minted.error().message);
      }
    }
    const auto ether = evm::abi::to_base_units("1000", 18)->to_quantity();
    if (auto funded = node.client().call("anvil_setBalance",
                                         "[\"" + address->lowercase() + "\", \"" + ether + "\"]");
        !funded.ok()) {
      return fail("funding the hot wallet: " + funded.error().message);
    }
    auto next = node.transaction_count(*address, evm::kPending);
    if (!next.ok()) return fail(next.error().message);
    auto reset = pool.transact([&](pqxx::work& tx) -> model::Status {
      evm_transactions::reset_nonce_for_new_chain(tx, std::string(network), address->lowercase(),
                                                  *next);
      return model::ok_status();
    });
    if (!reset.ok()) return fail(reset.error().message);
    json += local_network_json(network, *chain_id, *rpc_url, network_tokens);
    json += network == kLocalNetworks[std::size(kLocalNetworks) - 1] ? "\n" : ",\n";
    std::printf("%s hot wallet %s: 1000000 USDC, 1000000 USDT, 1000 ETH\n",
                std::string(network).c_str(), address->checksummed().c_str());
  }
  std::ofstream(*out) << json << "}\n";
  std::printf("networks file: %s\n", out->c_str());
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
  table["evm-local-chain"] = {
      "evm-local-chain --rpc-url <http://127.0.0.1:8545> --out <networks file>",
      "on a local anvil (infra/up --chain): deploy USDC and USDT, fund each network's hot wallet "
      "(created if missing) and write the networks file; never a real network",
      evm_local_chain};
  table["evm-wallets"] = {"evm-wallets", "each network's hot-wallet address", evm_wallets};
  table["evm-balance"] = {
      "evm-balance --network <network> --asset <USDC|USDT|ETH> --address <0x...>",
      "an address's balance read from the network's node (PAYRAIL_EVM_NETWORKS_FILE)", evm_balance};
}

}  // namespace payrail::infra::cli
