// The EVM networks of live payouts, from the JSON file PAYRAIL_EVM_NETWORKS_FILE names
// (docs/evm.md "Configuration"): per network its chain id, node URLs, confirmations, token
// contracts with their decimals (configuration, never assumed: USDC carries 18 on bsc), fee caps,
// when a transaction not mined is replaced, and how long a payout waits for hot-wallet funds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/adapters/evm/bytes.h"
#include "infra/adapters/evm/uint256.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::chain {

struct EvmToken {
  evm::Address contract;
  int decimals = 0;
};

struct EvmNetwork {
  std::string name;  // polygon, arbitrum, optimism, base, bsc or ethereum
  std::uint64_t chain_id = 0;
  std::vector<std::string> rpc_urls;  // may carry API keys: never logged
  int confirmations = 1;
  std::map<std::string, EvmToken> tokens;  // by asset: USDC, USDT (ETH is native, 18 decimals)
  evm::U256 max_fee_per_gas_cap_wei;
  evm::U256 max_priority_fee_per_gas_cap_wei;
  std::uint64_t token_transfer_gas = 100000;
  int replace_after_blocks = 20;
  long funding_wait_max_s = 3600;
};

struct EvmNetworks {
  std::map<std::string, EvmNetwork> by_name;
  const EvmNetwork* find(std::string_view name) const;
};

// polygon, arbitrum, optimism, base, bsc or ethereum.
bool is_evm_network(std::string_view name);

// Reads and checks the file's text; an error names the network and the field that is wrong.
model::Result<EvmNetworks> parse_evm_networks(std::string_view json_text);
model::Result<EvmNetworks> load_evm_networks(const std::string& path);

// Whether a live payout of `amount` `asset` on `network` can be sent as configured: the network
// and the token exist (else 503 provider_unavailable, param destination.network or currency) and
// the token's decimals carry the amount exactly (else 422, param amount).
model::Status check_live_payout(const EvmNetworks& networks, std::string_view network,
                                std::string_view asset, std::string_view amount);

}  // namespace payrail::infra::chain
