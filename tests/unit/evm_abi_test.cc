// 256-bit integers, addresses, ERC-20 call data and token amounts in base units.
#include "infra/adapters/evm/abi.h"

#include "infra/adapters/evm/contracts.h"

#include <gtest/gtest.h>

namespace payrail::infra::evm {
namespace {

constexpr const char* kMaxDecimal =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";

Address address(const char* text) {
  return parse_address(text).value();
}

TEST(EvmUint256, DecimalAndQuantityRoundTripsAtTheLimits) {
  const auto max = U256::from_decimal(kMaxDecimal);
  ASSERT_TRUE(max);
  EXPECT_EQ(*max, U256::max());
  EXPECT_EQ(max->to_decimal(), kMaxDecimal);
  EXPECT_EQ(max->to_quantity(), "0x" + std::string(64, 'f'));
  EXPECT_EQ(U256::from_quantity(max->to_quantity()), max);
  EXPECT_EQ(U256(0).to_decimal(), "0");
  EXPECT_EQ(U256(0).to_quantity(), "0x0");
  EXPECT_EQ(U256(0).to_minimal_big_endian(), "");
  EXPECT_EQ(U256::from_quantity("0x3b9aca00"), U256(1000000000));
  EXPECT_EQ(U256::from_quantity("0x0003b9aca00"), U256(1000000000));  // leading zeros tolerated
}

TEST(EvmUint256, RefusesWhatIsNotAnExactValue) {
  // 2^256 is one too many.
  EXPECT_FALSE(U256::from_decimal(
      "115792089237316195423570985008687907853269984665640564039457584007913129639936"));
  EXPECT_FALSE(U256::from_decimal(""));
  EXPECT_FALSE(U256::from_decimal("007"));
  EXPECT_FALSE(U256::from_decimal("-1"));
  EXPECT_FALSE(U256::from_decimal("1.0"));
  EXPECT_FALSE(U256::from_quantity("0x"));
  EXPECT_FALSE(U256::from_quantity("12"));
  EXPECT_FALSE(U256::from_quantity("0xg1"));
  EXPECT_FALSE(U256::from_quantity("0x1" + std::string(64, '0')));  // 65 digits
  EXPECT_FALSE(U256::from_big_endian(std::string(33, '\x01')));
}

TEST(EvmUint256, ArithmeticIsCheckedNeverWrapping) {
  EXPECT_FALSE(checked_add(U256::max(), U256(1)));
  EXPECT_FALSE(checked_subtract(U256(1), U256(2)));
  EXPECT_FALSE(checked_multiply(U256::max(), U256(2)));
  const U256 two_to_64 = *checked_add(U256(~std::uint64_t{0}), U256(1));
  EXPECT_EQ(two_to_64.to_quantity(), "0x10000000000000000");
  EXPECT_EQ(checked_subtract(two_to_64, U256(1)), U256(~std::uint64_t{0}));
  EXPECT_EQ(checked_multiply(two_to_64, two_to_64)->to_quantity(),
            "0x100000000000000000000000000000000");
  EXPECT_FALSE(two_to_64.to_uint64());
  EXPECT_EQ(power_of_ten(77)->to_decimal(), "1" + std::string(77, '0'));
  EXPECT_FALSE(power_of_ten(78));
  EXPECT_TRUE(U256(3) < two_to_64);
}

TEST(EvmAddress, ParsesChecksumsAndRefusesATypo) {
  const auto account = parse_address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  ASSERT_TRUE(account);
  EXPECT_EQ(account->checksummed(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  EXPECT_EQ(account->lowercase(), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  EXPECT_EQ(parse_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"), account);
  EXPECT_EQ(parse_address("0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266"), account);
  // One letter's case changed: the EIP-55 checksum no longer matches.
  EXPECT_FALSE(parse_address("0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
  EXPECT_FALSE(parse_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226"));
  EXPECT_FALSE(parse_address("f39fd6e51aad88f6f4ce6ab8827279cfffb9226600"));
}

TEST(EvmAbi, Erc20SelectorsAndCallData) {
  EXPECT_EQ(to_hex(abi::selector("transfer(address,uint256)")), "0xa9059cbb");
  EXPECT_EQ(to_hex(abi::selector("balanceOf(address)")), "0x70a08231");
  const Address recipient = address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  EXPECT_EQ(to_hex(abi::transfer_call(recipient, U256(250750000))),
            "0xa9059cbb"
            "00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"
            "000000000000000000000000000000000000000000000000000000000ef22430");
  EXPECT_EQ(to_hex(abi::balance_of_call(recipient)),
            "0x70a08231"
            "00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8");
}

// The token's constructor arguments (string, string, uint8): two dynamic values, each an offset
// in the head and a length plus padded bytes in the tail (the Solidity ABI specification).
TEST(EvmAbi, EncodesDynamicArgumentsAfterTheHeads) {
  const Bytes encoded = abi::encode({abi::dynamic("USD Coin"), abi::dynamic("USDC"), abi::word(6)});
  EXPECT_EQ(to_hex(encoded),
            "0x"
            "0000000000000000000000000000000000000000000000000000000000000060"
            "00000000000000000000000000000000000000000000000000000000000000a0"
            "0000000000000000000000000000000000000000000000000000000000000006"
            "0000000000000000000000000000000000000000000000000000000000000008"
            "55534420436f696e000000000000000000000000000000000000000000000000"
            "0000000000000000000000000000000000000000000000000000000000000004"
            "5553444300000000000000000000000000000000000000000000000000000000");
  // A value of exactly 32 bytes takes no padding; an empty one takes only its length.
  EXPECT_EQ(abi::encode({abi::dynamic(std::string(32, 'a'))}).size(), 32u * 3);
  EXPECT_EQ(abi::encode({abi::dynamic("")}).size(), 32u * 2);
}

TEST(EvmAbi, DecodesOneReturnedWord) {
  auto word = abi::decode_word(from_hex("0x" + std::string(62, '0') + "2a").value());
  ASSERT_TRUE(word.ok());
  EXPECT_EQ(*word, U256(42));
  EXPECT_FALSE(abi::decode_word("").ok());
  EXPECT_FALSE(abi::decode_word(std::string(31, '\0')).ok());
}

TEST(EvmAbi, AmountsInBaseUnitsAreExact) {
  EXPECT_EQ(abi::to_base_units("250.75", 6)->to_decimal(), "250750000");
  EXPECT_EQ(abi::to_base_units("0.000001", 6)->to_decimal(), "1");
  EXPECT_EQ(abi::to_base_units("1.5", 18)->to_decimal(), "1500000000000000000");
  EXPECT_EQ(abi::to_base_units("1.500000000", 6)->to_decimal(), "1500000");  // zeros are exact
  EXPECT_EQ(abi::to_base_units("7", 0)->to_decimal(), "7");
  EXPECT_EQ(abi::to_base_units("0", 6)->to_decimal(), "0");
  // The largest API amount (20 integer digits, 18 decimals) at 18 decimals.
  EXPECT_EQ(abi::to_base_units("99999999999999999999.999999999999999999", 18)->to_decimal(),
            "99999999999999999999999999999999999999");
  EXPECT_EQ(abi::to_base_units("1", 77)->to_decimal(), "1" + std::string(77, '0'));
}

TEST(EvmAbi, AnAmountTheTokenCannotCarryIsAnError) {
  const auto too_precise = abi::to_base_units("1.0000001", 6);
  ASSERT_FALSE(too_precise.ok());
  EXPECT_EQ(too_precise.error().message,
            "amount has more fractional digits than the token's 6 decimals");
  EXPECT_EQ(too_precise.error().param, "amount");
  EXPECT_FALSE(abi::to_base_units("7.5", 0).ok());
  EXPECT_FALSE(abi::to_base_units("2", 77).ok());  // 2 * 10^77 > 2^256
  EXPECT_FALSE(abi::to_base_units("-1", 6).ok());
  EXPECT_FALSE(abi::to_base_units("1e6", 6).ok());
  EXPECT_FALSE(abi::to_base_units("", 6).ok());
  EXPECT_FALSE(abi::to_base_units("1", 78).ok());
  EXPECT_FALSE(abi::to_base_units("1", -1).ok());
}

TEST(EvmAbi, BaseUnitsPrintWithTheTokensDecimals) {
  EXPECT_EQ(abi::from_base_units(U256(250750000), 6), "250.750000");
  EXPECT_EQ(abi::from_base_units(U256(1), 6), "0.000001");
  EXPECT_EQ(abi::from_base_units(U256(0), 6), "0.000000");
  EXPECT_EQ(abi::from_base_units(U256(7), 0), "7");
  EXPECT_EQ(abi::from_base_units(*abi::to_base_units("1.5", 18), 18), "1.500000000000000000");
}

// The token's compiled files are embedded in the library (contracts/Token.bin and its ABI).
TEST(EvmContracts, EmbedsTheCompiledToken) {
  const Bytes& code = token_creation_code();
  ASSERT_GT(code.size(), 1000u);
  EXPECT_EQ(to_hex(code.substr(0, 4)), "0x60c06040");  // solc's creation prologue
  EXPECT_NE(token_abi_json().find("\"name\": \"transfer\""), std::string_view::npos);
  EXPECT_NE(token_abi_json().find("\"name\": \"mint\""), std::string_view::npos);
  EXPECT_EQ(to_hex(transfer_event_topic()),
            "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
  EXPECT_EQ(to_hex(token_mint_call(Address{}, U256(1)).substr(0, 4)), "0x40c10f19");
}

}  // namespace
}  // namespace payrail::infra::evm
