#include "schemas/model/payouts/destination.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schemas/model/payouts/base58.h"

namespace payrail::model {
namespace {

constexpr std::string_view kEvmAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
constexpr std::string_view kTronAddress = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
constexpr std::string_view kSolanaAddress = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

constexpr Network kAllNetworks[] = {Network::polygon, Network::arbitrum, Network::optimism,
                                    Network::base,    Network::bsc,      Network::ethereum,
                                    Network::tron,    Network::solana};
constexpr Network kEvmNetworks[] = {Network::polygon, Network::arbitrum, Network::optimism,
                                    Network::base,    Network::bsc,      Network::ethereum};

std::string_view valid_address(Network network) {
  if (network == Network::tron) return kTronAddress;
  if (network == Network::solana) return kSolanaAddress;
  return kEvmAddress;
}

Asset usable_asset(Network network) {
  return network == Network::solana ? Asset::USDC : Asset::USDT;
}

void expect_accepted(std::string_view network, std::string_view address, Mode mode,
                     TestTrigger trigger) {
  Result<Destination> result = validate_destination(network, address, Asset::USDT, mode);
  ASSERT_TRUE(result.ok()) << network << " " << address << ": " << result.error().message;
  EXPECT_EQ(network_name(result->network), network);
  EXPECT_EQ(result->address, address);
  EXPECT_EQ(result->trigger, trigger) << address;
}

void expect_invalid_address(std::string_view network, std::string_view address,
                            Mode mode = Mode::live, Asset asset = Asset::USDT) {
  Result<Destination> result = validate_destination(network, address, asset, mode);
  ASSERT_FALSE(result.ok()) << network << " accepted \"" << address << "\"";
  EXPECT_EQ(result.error().code, ErrorCode::unsupported_destination);
  EXPECT_EQ(result.error().param, "destination.address") << address;
  EXPECT_FALSE(result.error().message.empty());
}

std::string flip_case_of_first_letter(std::string_view address) {
  std::string flipped(address);
  for (std::size_t i = 2; i < flipped.size(); ++i) {
    char c = flipped[i];
    if (c >= 'a' && c <= 'f') {
      flipped[i] = static_cast<char>(c - 'a' + 'A');
      return flipped;
    }
    if (c >= 'A' && c <= 'F') {
      flipped[i] = static_cast<char>(c - 'A' + 'a');
      return flipped;
    }
  }
  return flipped;
}

TEST(DestinationNetwork, ParsesLowercaseNames) {
  for (Network network : kAllNetworks) {
    EXPECT_EQ(parse_network(network_name(network)), network);
  }
  EXPECT_EQ(network_name(Network::bsc), "bsc");
  for (std::string_view text : {"Polygon", "ETHEREUM", "eth", "matic", "", " tron", "solana "}) {
    EXPECT_FALSE(parse_network(text).has_value()) << text;
  }
}

TEST(DestinationNetwork, EvmNetworks) {
  for (Network network : kEvmNetworks) EXPECT_TRUE(is_evm_network(network));
  EXPECT_FALSE(is_evm_network(Network::tron));
  EXPECT_FALSE(is_evm_network(Network::solana));
}

TEST(DestinationNetwork, SupportTableForEveryCombination) {
  for (Network network : kAllNetworks) {
    for (Asset asset : {Asset::USDC, Asset::USDT, Asset::ETH}) {
      bool expected = is_evm_network(network) || asset == Asset::USDT ||
                      (network == Network::solana && asset == Asset::USDC);
      EXPECT_EQ(network_supports(network, asset), expected)
          << network_name(network) << " " << asset_name(asset);
      Result<Destination> result =
          validate_destination(network_name(network), valid_address(network), asset, Mode::live);
      ASSERT_EQ(result.ok(), expected) << network_name(network) << " " << asset_name(asset);
      if (expected) continue;
      EXPECT_EQ(result.error().code, ErrorCode::unsupported_destination);
      EXPECT_EQ(result.error().param, "currency");
      EXPECT_EQ(result.error().message, std::string(asset_name(asset)) + " is not supported on " +
                                            std::string(network_name(network)));
    }
  }
}

TEST(DestinationNetwork, RefusalMessages) {
  Result<Destination> eth_on_tron =
      validate_destination("tron", kTronAddress, Asset::ETH, Mode::live);
  ASSERT_FALSE(eth_on_tron.ok());
  EXPECT_EQ(eth_on_tron.error().message, "ETH is not supported on tron");
  Result<Destination> usdc_on_tron =
      validate_destination("tron", kTronAddress, Asset::USDC, Mode::live);
  ASSERT_FALSE(usdc_on_tron.ok());
  EXPECT_EQ(usdc_on_tron.error().message, "USDC is not supported on tron");
  Result<Destination> eth_on_solana =
      validate_destination("solana", kSolanaAddress, Asset::ETH, Mode::test);
  ASSERT_FALSE(eth_on_solana.ok());
  EXPECT_EQ(eth_on_solana.error().message, "ETH is not supported on solana");
}

TEST(DestinationNetwork, UnknownNetworkComesFirst) {
  for (std::string_view network : {"bitcoin", "Polygon", ""}) {
    Result<Destination> result = validate_destination(network, "", Asset::ETH, Mode::live);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ErrorCode::unsupported_destination);
    EXPECT_EQ(result.error().param, "destination.network");
  }
  // An unsupported asset is reported before the address is looked at.
  Result<Destination> result = validate_destination("tron", "", Asset::ETH, Mode::live);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().param, "currency");
}

TEST(DestinationAddress, RejectsEmptyLongAndPaddedAddresses) {
  for (Network network : kAllNetworks) {
    std::string_view name = network_name(network);
    std::string valid(valid_address(network));
    for (Mode mode : {Mode::test, Mode::live}) {
      expect_invalid_address(name, "", mode, usable_asset(network));
      expect_invalid_address(name, " " + valid, mode, usable_asset(network));
      expect_invalid_address(name, valid + " ", mode, usable_asset(network));
      expect_invalid_address(name, valid + "\n", mode, usable_asset(network));
      expect_invalid_address(name, std::string(129, '1'), mode, usable_asset(network));
      expect_invalid_address(name, std::string(1000, 'a'), mode, usable_asset(network));
    }
  }
}

TEST(DestinationEvm, AcceptsEip55Examples) {
  for (std::string_view address :
       {"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
        "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"}) {
    for (Network network : kEvmNetworks) {
      expect_accepted(network_name(network), address, Mode::live, TestTrigger::none);
    }
    expect_accepted("ethereum", address, Mode::test, TestTrigger::none);
    expect_invalid_address("ethereum", flip_case_of_first_letter(address));
  }
}

TEST(DestinationEvm, SingleCaseHexNeedsNoChecksum) {
  expect_accepted("polygon", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", Mode::live,
                  TestTrigger::none);
  expect_accepted("polygon", "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", Mode::live,
                  TestTrigger::none);
  expect_accepted("base", "0x0000000000000000000000000000000000000000", Mode::live,
                  TestTrigger::none);
}

TEST(DestinationEvm, RejectsMalformedAddresses) {
  for (std::string_view address : {
           "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",     // no 0x
           "0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",   // uppercase X
           "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe",    // 39 hex
           "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed0",  // 41 hex
           "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",   // non-hex
           "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea d",   // inner space
           "0x",
       }) {
    expect_invalid_address("arbitrum", address);
  }
}

TEST(DestinationTron, AcceptsUsdtContractAddress) {
  expect_accepted("tron", kTronAddress, Mode::live, TestTrigger::none);
  expect_accepted("tron", kTronAddress, Mode::test, TestTrigger::none);
}

TEST(DestinationTron, RejectsChangedOrMalformedAddresses) {
  for (std::string_view address : {
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u",   // last character changed
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj7t",   // checksum byte changed
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6",    // 33 characters
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6tt",  // 35 characters
           "tR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",   // lowercase t
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t",   // '0' is not base58
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLjOt",   // 'O' is not base58
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLjIt",   // 'I' is not base58
           "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLjlt",   // 'l' is not base58
           "1BoatSLRHtKNngkdXEeobR76b53LETtpyT",   // Bitcoin address
       }) {
    expect_invalid_address("tron", address);
  }
}

TEST(DestinationSolana, AcceptsAddressesOfThirtyTwoBytes) {
  for (std::string_view address : {
           "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",  // USDC mint, 44 characters
           "EPjFWdd5AufqSo9xqPdY8Lsn9ZHE8gD7Pv76sFJ2Gfj1",  // 44 characters
           "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",   // token program, 43 characters
           "11111111111111111111111111111111",              // system program, 32 characters
       }) {
    ASSERT_EQ(base58_decode(address).value_or("").size(), 32u) << address;
    expect_accepted("solana", address, Mode::live, TestTrigger::none);
  }
}

TEST(DestinationSolana, RejectsOtherLengthsAndCharacters) {
  for (std::string_view address : {
           "1111111111111111111111111111111",                // 31 characters
           "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1vv",  // 45 characters
           "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",   // 44 characters, 33 bytes
           "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",               // 32 characters, 24 bytes
           "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1O",   // 'O' is not base58
           "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",     // EVM address
       }) {
    expect_invalid_address("solana", address, Mode::live, Asset::USDC);
  }
}

struct Trigger {
  std::string_view network;
  std::string_view address;
  TestTrigger trigger;
};

const std::vector<Trigger>& trigger_addresses() {
  static const std::vector<Trigger> triggers{
      {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435E70blocked", TestTrigger::blocked},
      {"ethereum", "0x000000000000000000000000000000000blocked", TestTrigger::blocked},
      {"bsc", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef10fail", TestTrigger::fail},
      {"base", "0x000000000000000000000000000000000000fail", TestTrigger::fail},
      {"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8ot0blocked", TestTrigger::blocked},
      {"tron", "T11111111111111111111111110blocked", TestTrigger::blocked},
      {"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzg0fail", TestTrigger::fail},
      {"tron", "T11111111111111111111111111110fail", TestTrigger::fail},
      {"solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G0blocked", TestTrigger::blocked},
      {"solana", "EPjFWdd5AufqSSqeM2qN1xzy0blocked", TestTrigger::blocked},
      {"solana", "1111111111111111111111111111111111110blocked", TestTrigger::blocked},
      {"solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwy0fail", TestTrigger::fail},
      {"solana", "EPjFWdd5AufqSSqeM2qN1xzybap0fail", TestTrigger::fail},
  };
  return triggers;
}

TEST(DestinationTrigger, EachShapeIsAcceptedInTestMode) {
  for (const Trigger& t : trigger_addresses()) {
    expect_accepted(t.network, t.address, Mode::test, t.trigger);
  }
}

TEST(DestinationTrigger, SameStringsAreInvalidInLiveMode) {
  for (const Trigger& t : trigger_addresses()) {
    expect_invalid_address(t.network, t.address, Mode::live);
  }
}

TEST(DestinationTrigger, WrongShapesAreRejectedInTestMode) {
  for (const Trigger& t : std::vector<Trigger>{
           // EVM: 43 and 41 characters, a non-hex character, no 0x prefix.
           {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435E7E0blocked", TestTrigger::blocked},
           {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435E0blocked", TestTrigger::blocked},
           {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435Eg0blocked", TestTrigger::blocked},
           {"polygon", "005aAeb6053F3E94C9b9A09f33669435E70blocked", TestTrigger::blocked},
           {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1B0fail", TestTrigger::fail},
           {"polygon", "0x5aAeb6053F3E94C9b9A09f33669435E70BLOCKED", TestTrigger::blocked},
           // Tron: not starting with T, 35 characters, 'I' outside base58.
           {"tron", "XR7NHqjeKQxGTCi8q8ZY4pL8ot0blocked", TestTrigger::blocked},
           {"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otS0blocked", TestTrigger::blocked},
           {"tron", "TR7NHqjeKQxGTCi8q8ZYIpL8otSzg0fail", TestTrigger::fail},
           // Solana: 31 and 45 characters, '0' before the suffix.
           {"solana", "EPjFWdd5AufqSSqeM2qN1xz0blocked", TestTrigger::blocked},
           {"solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyT0fail", TestTrigger::fail},
           {"solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G0wEGGkZwy0fail", TestTrigger::fail},
           {"solana", "0blocked", TestTrigger::blocked},
           {"polygon", "0blocked", TestTrigger::blocked},
       }) {
    expect_invalid_address(t.network, t.address, Mode::test, Asset::USDT);
  }
}

TEST(DestinationScreening, NormalizesEvmToLowercaseOnly) {
  EXPECT_EQ(normalize_address_for_screening(Network::ethereum, kEvmAddress),
            "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed");
  EXPECT_EQ(
      normalize_address_for_screening(Network::bsc, "0xABCDEF0000000000000000000000000000000000"),
      "0xabcdef0000000000000000000000000000000000");
  EXPECT_EQ(normalize_address_for_screening(Network::tron, kTronAddress), kTronAddress);
  EXPECT_EQ(normalize_address_for_screening(Network::solana, kSolanaAddress), kSolanaAddress);
}

TEST(DestinationBase58, DecodesLeadingOnesAndValues) {
  EXPECT_EQ(base58_decode(""), std::string());
  EXPECT_EQ(base58_decode("1"), std::string(1, '\0'));
  EXPECT_EQ(base58_decode("11"), std::string(2, '\0'));
  EXPECT_EQ(base58_decode("2"), std::string(1, '\x01'));
  EXPECT_EQ(base58_decode("z"), std::string(1, '\x39'));
  EXPECT_EQ(base58_decode("21"), std::string(1, '\x3a'));
  EXPECT_EQ(base58_decode("5Q"), std::string(1, '\xff'));
  EXPECT_EQ(base58_decode("5R"), std::string("\x01\x00", 2));
  EXPECT_EQ(base58_decode("15R"), std::string("\x00\x01\x00", 3));
  EXPECT_EQ(base58_decode("2NEpo7TZRRrLZSi2U"), std::string("Hello World!"));
}

TEST(DestinationBase58, RejectsOutsideAlphabetAndOverlongInput) {
  for (std::string_view text : {"0", "O", "I", "l", "+", "/", " 2", "2 ", "abc-"}) {
    EXPECT_FALSE(base58_decode(text).has_value()) << text;
  }
  EXPECT_TRUE(base58_decode(std::string(128, 'z')).has_value());
  EXPECT_FALSE(base58_decode(std::string(129, '1')).has_value());
}

}  // namespace
}  // namespace payrail::model
