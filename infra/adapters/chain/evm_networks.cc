#include "infra/adapters/chain/evm_networks.h"

#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "infra/adapters/evm/abi.h"

namespace payrail::infra::chain {
namespace {

using model::Error;
using model::ErrorCode;

constexpr std::string_view kEvmNetworks[] = {"polygon", "arbitrum", "optimism",
                                             "base",    "bsc",      "ethereum"};

Error invalid(const std::string& where, const std::string& what) {
  return Error::make(ErrorCode::internal_error,
                     "PAYRAIL_EVM_NETWORKS_FILE: " + where + ": " + what);
}

// A wei amount as decimal text (a JSON string: fee caps do not fit a double exactly).
model::Result<evm::U256> wei(const rapidjson::Value& object, const char* field,
                             const std::string& where) {
  if (!object.HasMember(field) || !object[field].IsString()) {
    return invalid(where, std::string(field) + " must be a decimal string of wei");
  }
  auto value = evm::U256::from_decimal(object[field].GetString());
  if (!value || value->is_zero()) {
    return invalid(where, std::string(field) + " must be a positive decimal string of wei");
  }
  return *value;
}

// An integer member within [min, max]; `fallback` when absent and optional.
model::Result<std::int64_t> integer(const rapidjson::Value& object, const char* field,
                                    const std::string& where, std::int64_t min, std::int64_t max,
                                    std::optional<std::int64_t> fallback = std::nullopt) {
  if (!object.HasMember(field)) {
    if (fallback) return *fallback;
    return invalid(where, std::string(field) + " is required");
  }
  const auto& value = object[field];
  if (!value.IsInt64() || value.GetInt64() < min || value.GetInt64() > max) {
    return invalid(where, std::string(field) + " must be an integer from " + std::to_string(min) +
                              " to " + std::to_string(max));
  }
  return value.GetInt64();
}

model::Result<std::map<std::string, EvmToken>> tokens(const rapidjson::Value& object,
                                                      const std::string& where) {
  std::map<std::string, EvmToken> found;
  if (!object.HasMember("tokens")) return found;
  if (!object["tokens"].IsObject()) return invalid(where, "tokens must be an object");
  for (const auto& member : object["tokens"].GetObject()) {
    const std::string asset = member.name.GetString();
    const std::string at = where + ".tokens." + asset;
    if (asset != "USDC" && asset != "USDT") return invalid(at, "a token is USDC or USDT");
    if (!member.value.IsObject()) return invalid(at, "must be an object");
    const auto& token = member.value;
    if (!token.HasMember("address") || !token["address"].IsString()) {
      return invalid(at, "address is required");
    }
    const auto contract = evm::parse_address(token["address"].GetString());
    if (!contract) return invalid(at, "address is not an EVM address");
    auto decimals = integer(token, "decimals", at, 0, 77);
    if (!decimals.ok()) return decimals.error();
    found[asset] = {*contract, static_cast<int>(*decimals)};
  }
  return found;
}

model::Result<EvmNetwork> network(const std::string& name, const rapidjson::Value& object) {
  const std::string where = name;
  if (!is_evm_network(name)) {
    return invalid(where, "not an EVM network (polygon, arbitrum, optimism, base, bsc, ethereum)");
  }
  if (!object.IsObject()) return invalid(where, "must be an object");
  EvmNetwork parsed;
  parsed.name = name;
  auto chain_id = integer(object, "chain_id", where, 1, INT64_MAX);
  if (!chain_id.ok()) return chain_id.error();
  parsed.chain_id = static_cast<std::uint64_t>(*chain_id);
  if (!object.HasMember("rpc_urls") || !object["rpc_urls"].IsArray() ||
      object["rpc_urls"].Empty()) {
    return invalid(where, "rpc_urls must be a non-empty array of URLs");
  }
  for (const auto& url : object["rpc_urls"].GetArray()) {
    if (!url.IsString()) return invalid(where, "rpc_urls must be strings");
    parsed.rpc_urls.emplace_back(url.GetString());
  }
  auto confirmations = integer(object, "confirmations", where, 1, 10000);
  if (!confirmations.ok()) return confirmations.error();
  parsed.confirmations = static_cast<int>(*confirmations);
  auto found_tokens = tokens(object, where);
  if (!found_tokens.ok()) return found_tokens.error();
  parsed.tokens = std::move(*found_tokens);
  auto max_fee = wei(object, "max_fee_per_gas_cap_wei", where);
  if (!max_fee.ok()) return max_fee.error();
  parsed.max_fee_per_gas_cap_wei = *max_fee;
  auto priority_fee = wei(object, "max_priority_fee_per_gas_cap_wei", where);
  if (!priority_fee.ok()) return priority_fee.error();
  parsed.max_priority_fee_per_gas_cap_wei = *priority_fee;
  auto gas = integer(object, "token_transfer_gas", where, 21000, 10000000, 100000);
  if (!gas.ok()) return gas.error();
  parsed.token_transfer_gas = static_cast<std::uint64_t>(*gas);
  auto replace_after = integer(object, "replace_after_blocks", where, 1, 100000, 20);
  if (!replace_after.ok()) return replace_after.error();
  parsed.replace_after_blocks = static_cast<int>(*replace_after);
  auto funding_wait = integer(object, "funding_wait_max_s", where, 0, 30 * 86400, 3600);
  if (!funding_wait.ok()) return funding_wait.error();
  parsed.funding_wait_max_s = static_cast<long>(*funding_wait);
  return parsed;
}

}  // namespace

bool is_evm_network(std::string_view name) {
  for (const auto evm_network : kEvmNetworks) {
    if (evm_network == name) return true;
  }
  return false;
}

const EvmNetwork* EvmNetworks::find(std::string_view name) const {
  const auto found = by_name.find(std::string(name));
  return found == by_name.end() ? nullptr : &found->second;
}

model::Result<EvmNetworks> parse_evm_networks(std::string_view json_text) {
  rapidjson::Document document;
  document.Parse(json_text.data(), json_text.size());
  if (document.HasParseError() || !document.IsObject()) {
    return invalid("the file", "must be a JSON object of networks by name");
  }
  EvmNetworks networks;
  for (const auto& member : document.GetObject()) {
    auto parsed = network(member.name.GetString(), member.value);
    if (!parsed.ok()) return parsed.error();
    networks.by_name[parsed->name] = std::move(*parsed);
  }
  if (networks.by_name.empty()) return invalid("the file", "names no network");
  return networks;
}

model::Result<EvmNetworks> load_evm_networks(const std::string& path) {
  std::ifstream file(path);
  if (!file) return invalid(path, "cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  return parse_evm_networks(text.str());
}

model::Status check_live_payout(const EvmNetworks& networks, std::string_view network_name,
                                std::string_view asset, std::string_view amount) {
  const auto* network = networks.find(network_name);
  if (network == nullptr) {
    auto error = Error::make(ErrorCode::provider_unavailable,
                             "Live payouts on " + std::string(network_name) +
                                 " are not available: no live chain adapter serves it.");
    error.param = "destination.network";
    return error;
  }
  int decimals = 18;  // ETH, native on every EVM network
  if (asset != "ETH") {
    const auto token = network->tokens.find(std::string(asset));
    if (token == network->tokens.end()) {
      auto error = Error::make(ErrorCode::provider_unavailable,
                               "Live " + std::string(asset) + " payouts on " +
                                   std::string(network_name) + " are not available.");
      error.param = "currency";
      return error;
    }
    decimals = token->second.decimals;
  }
  if (!evm::abi::to_base_units(amount, decimals).ok()) {
    auto error =
        Error::make(ErrorCode::unsupported_destination,
                    std::string(asset) + " on " + std::string(network_name) + " carries " +
                        std::to_string(decimals) + " decimals: the amount cannot be sent exactly.");
    error.param = "amount";
    return error;
  }
  return model::ok_status();
}

}  // namespace payrail::infra::chain
