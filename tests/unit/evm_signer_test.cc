// The embedded secp256k1 signer: addresses of known keys, deterministic low-s recoverable
// signatures, and keys that are refused without being echoed.
#include "infra/adapters/evm/signer.h"

#include <gtest/gtest.h>

#include "infra/adapters/evm/uint256.h"
#include "infra/plumbing/crypto/data_key.h"

namespace payrail::infra::evm {
namespace {

// anvil's (and Hardhat's) dev accounts 0 and 1: public test keys, never used for real funds.
constexpr const char* kAccount0Key =
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kAccount1Key =
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
// The curve order n, and n / 2 (the largest low s).
constexpr const char* kOrder = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
constexpr const char* kHalfOrder =
    "0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0";

std::unique_ptr<LocalKeySigner> signer_of(const char* key_hex) {
  auto signer = LocalKeySigner::from_bytes(from_hex(key_hex).value());
  EXPECT_TRUE(signer.ok()) << signer.error().message;
  return std::move(signer).value();
}

U256 word(const std::array<std::uint8_t, 32>& bytes) {
  return *U256::from_big_endian(Bytes(bytes.begin(), bytes.end()));
}

TEST(EvmSigner, AddressesOfKnownKeys) {
  EXPECT_EQ(signer_of(kAccount0Key)->address().checksummed(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  EXPECT_EQ(signer_of(kAccount1Key)->address().checksummed(),
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  // The private key 1: its public key is the generator point.
  EXPECT_EQ(signer_of("0x0000000000000000000000000000000000000000000000000000000000000001")
                ->address()
                .checksummed(),
            "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
}

TEST(EvmSigner, SignaturesAreDeterministicLowSAndRecoverTheSigner) {
  const auto signer = signer_of(kAccount0Key);
  const U256 half_order = *U256::from_quantity(kHalfOrder);
  for (int i = 0; i < 64; ++i) {
    const Hash digest = keccak("payout " + std::to_string(i));
    auto first = signer->sign(digest);
    auto second = signer->sign(digest);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(*first, *second);  // RFC 6979: the nonce comes from the key and the digest
    EXPECT_LE(word(first->s), half_order);
    EXPECT_LE(first->y_parity, 1);
    EXPECT_EQ(recover_signer(digest, *first), signer->address());
    // Another digest, or the signature's parity flipped, recovers someone else.
    EXPECT_NE(recover_signer(keccak("other"), *first), signer->address());
    auto flipped = *first;
    flipped.y_parity ^= 1;
    EXPECT_NE(recover_signer(digest, flipped), signer->address());
  }
}

TEST(EvmSigner, RecoveryRefusesTheHighSTwin) {
  const auto signer = signer_of(kAccount0Key);
  const Hash digest = keccak("payout");
  auto signature = signer->sign(digest).value();
  // (r, n - s) with the other parity is the same signature in its malleable form (EIP-2).
  const auto high_s = checked_subtract(*U256::from_quantity(kOrder), word(signature.s)).value();
  signature.s = high_s.to_word();
  signature.y_parity ^= 1;
  EXPECT_FALSE(recover_signer(digest, signature));
}

TEST(EvmSigner, RefusesKeysWithoutEchoingThem) {
  const std::string zero(32, '\0');
  const std::string order = from_hex(kOrder).value();
  const std::string short_key = from_hex(kAccount0Key).value().substr(1);
  for (const auto& key : {zero, order, short_key, std::string()}) {
    auto signer = LocalKeySigner::from_bytes(key);
    ASSERT_FALSE(signer.ok());
    const auto& message = signer.error().message;
    EXPECT_EQ(message.rfind("hot-wallet signer: ", 0), 0u) << message;
    if (!key.empty()) {
      EXPECT_EQ(message.find(to_hex(key).substr(2, 16)), std::string::npos) << message;
    }
  }
  auto wrong_length = LocalKeySigner::from_bytes(short_key);
  EXPECT_EQ(wrong_length.error().message, "hot-wallet signer: the private key must be 32 bytes");
  auto out_of_range = LocalKeySigner::from_bytes(order);
  EXPECT_EQ(
      out_of_range.error().message,
      "hot-wallet signer: the private key is not a valid secp256k1 key (zero or not below n)");
}

// How the store will keep a hot-wallet key: sealed with the data key, opened into the 32 raw
// bytes the signer is built from. The sealed text does not contain the key.
TEST(EvmSigner, BuildsFromAKeySealedWithTheDataKey) {
  const auto data_key = crypto::DataKey::from_hex(std::string(64, 'a')).value();
  const Bytes key = from_hex(kAccount0Key).value();
  const auto sealed = data_key.seal(key).value();
  EXPECT_EQ(sealed.find(key), std::string::npos);
  const auto opened = data_key.open(sealed).value();
  auto signer = LocalKeySigner::from_bytes(opened);
  ASSERT_TRUE(signer.ok());
  EXPECT_EQ((*signer)->address(), signer_of(kAccount0Key)->address());
}

}  // namespace
}  // namespace payrail::infra::evm
