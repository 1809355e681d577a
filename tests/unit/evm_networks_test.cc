// The networks file of PAYRAIL_CHAIN_ADAPTER=evm (infra/adapters/chain/evm_networks.h): a valid
// file is read with its defaults; each malformed field is refused with a message naming the
// network and the field; tron and solana have no live adapter; the API's check refuses a network
// or token not configured (503) and an amount the token's decimals cannot carry (422, amount).
#include <gtest/gtest.h>

#include "infra/adapters/chain/evm_networks.h"

namespace payrail::infra::chain {
namespace {

constexpr const char* kToken = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

std::string network(const std::string& name, const std::string& extra = "") {
  return "\"" + name +
         "\":{\"chain_id\":137,\"rpc_urls\":[\"http://127.0.0.1:8545\"],\"confirmations\":3,"
         "\"max_fee_per_gas_cap_wei\":\"500000000000\",\"max_priority_fee_per_gas_cap_wei\":"
         "\"50000000000\",\"tokens\":{\"USDC\":{\"address\":\"" +
         kToken + "\",\"decimals\":6},\"USDT\":{\"address\":\"" + kToken + "\",\"decimals\":2}}" +
         extra + "}";
}

TEST(EvmNetworks, ReadsAValidFileWithItsDefaults) {
  const auto parsed = parse_evm_networks("{" + network("polygon") + "," +
                                         network("bsc", ",\"replace_after_blocks\":5") + "}");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const auto* polygon = parsed->find("polygon");
  ASSERT_NE(polygon, nullptr);
  EXPECT_EQ(polygon->chain_id, 137u);
  EXPECT_EQ(polygon->confirmations, 3);
  EXPECT_EQ(polygon->tokens.at("USDC").decimals, 6);
  EXPECT_EQ(polygon->max_fee_per_gas_cap_wei.to_decimal(), "500000000000");
  EXPECT_EQ(polygon->replace_after_blocks, 20);
  EXPECT_EQ(polygon->funding_wait_max_s, 3600);
  EXPECT_EQ(parsed->find("bsc")->replace_after_blocks, 5);
  EXPECT_EQ(parsed->find("base"), nullptr);
}

TEST(EvmNetworks, RefusesEachMalformedFieldNamingTheNetwork) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{" + network("tron") + "}", "tron: not an EVM network"},
      {"{" + network("solana") + "}", "solana: not an EVM network"},
      {R"({"polygon":{"chain_id":137}})", "polygon: rpc_urls must be"},
      {R"({"polygon":{"chain_id":0,"rpc_urls":["http://x"]}})", "polygon: chain_id must be"},
      {R"({"base":{"chain_id":8453,"rpc_urls":["http://x"],"confirmations":0}})",
       "base: confirmations must be an integer from 1"},
      {R"({"base":{"chain_id":8453,"rpc_urls":["http://x"],"confirmations":1,"max_fee_per_gas_cap_wei":5}})",
       "base: max_fee_per_gas_cap_wei must be"},
      {R"({"base":{"chain_id":8453,"rpc_urls":["http://x"],"confirmations":1,"tokens":{"USDC":{"address":"0x12","decimals":6}}}})",
       "base.tokens.USDC: address is not an EVM address"},
      {R"({"base":{"chain_id":8453,"rpc_urls":["http://x"],"confirmations":1,"tokens":{"DAI":{}}}})",
       "base.tokens.DAI: a token is USDC or USDT"},
      {"[]", "must be a JSON object"},
      {"{}", "names no network"},
  };
  for (const auto& [text, message] : cases) {
    const auto parsed = parse_evm_networks(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.error().message.find(message), std::string::npos)
        << parsed.error().message << " / " << text;
    EXPECT_NE(parsed.error().message.find("PAYRAIL_EVM_NETWORKS_FILE"), std::string::npos);
  }
}

TEST(EvmNetworks, TheApisCheckRefusesWhatCannotBeSentBeforeAnyHold) {
  const auto networks = parse_evm_networks("{" + network("polygon") + "}").value();
  EXPECT_TRUE(check_live_payout(networks, "polygon", "USDC", "12.345678").ok());
  EXPECT_TRUE(check_live_payout(networks, "polygon", "ETH", "0.000000000000000001").ok());
  EXPECT_TRUE(check_live_payout(networks, "polygon", "USDT", "1.5").ok());
  for (const auto* unserved : {"tron", "solana", "base"}) {
    const auto refused = check_live_payout(networks, unserved, "USDT", "1");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, model::ErrorCode::provider_unavailable);
    EXPECT_EQ(refused.error().param, "destination.network");
  }
  const auto coarse = check_live_payout(networks, "polygon", "USDT", "1.005");
  ASSERT_FALSE(coarse.ok());
  EXPECT_EQ(coarse.error().code, model::ErrorCode::unsupported_destination);
  EXPECT_EQ(coarse.error().param, "amount");
}

}  // namespace
}  // namespace payrail::infra::chain
