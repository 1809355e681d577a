#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace payrail::infra::crypto {
namespace {

std::string all_byte_values() {
  std::string data;
  for (int value = 0; value < 256; ++value) data.push_back(static_cast<char>(value));
  return data;
}

TEST(CryptoTest, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256("abc").size(), kSha256Bytes);
  EXPECT_EQ(hex_encode(sha256("abc")), sha256_hex("abc"));
}

TEST(CryptoTest, HmacSha256Rfc4231) {
  // Case 2: a key shorter than the block size.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Case 6: a key longer than the block size is hashed first.
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(hmac_sha256("Jefe", "data").size(), kSha256Bytes);
  EXPECT_EQ(hmac_sha256("", "data").size(), kSha256Bytes);
}

TEST(CryptoTest, HexRoundTripAndRejections) {
  EXPECT_EQ(hex_encode(std::string("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ(hex_decode("00FF10"), std::string("\x00\xff\x10", 3));
  EXPECT_EQ(hex_decode(""), std::string());
  const std::string data = all_byte_values();
  EXPECT_EQ(hex_decode(hex_encode(data)), data);
  EXPECT_EQ(hex_decode("abc"), std::nullopt);
  EXPECT_EQ(hex_decode("zz"), std::nullopt);
  EXPECT_EQ(hex_decode("0x"), std::nullopt);
}

TEST(CryptoTest, Base64UrlRfc4648Vectors) {
  EXPECT_EQ(base64url_encode(""), "");
  EXPECT_EQ(base64url_encode("f"), "Zg");
  EXPECT_EQ(base64url_encode("fo"), "Zm8");
  EXPECT_EQ(base64url_encode("foo"), "Zm9v");
  EXPECT_EQ(base64url_encode("foob"), "Zm9vYg");
  EXPECT_EQ(base64url_encode("fooba"), "Zm9vYmE");
  EXPECT_EQ(base64url_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_decode("Zm9vYmE"), "fooba");
  EXPECT_EQ(base64url_decode("-_8"), "\xfb\xff");
}

TEST(CryptoTest, Base64UrlRoundTripsEveryLength) {
  const std::string data = all_byte_values();
  for (std::size_t length = 0; length <= data.size(); ++length) {
    const std::string slice = data.substr(data.size() - length);
    EXPECT_EQ(base64url_decode(base64url_encode(slice)), slice) << length;
  }
}

TEST(CryptoTest, Base64UrlRejectsInvalidInput) {
  EXPECT_EQ(base64url_decode("Zg=="), std::nullopt);   // padding
  EXPECT_EQ(base64url_decode("Z"), std::nullopt);      // impossible length
  EXPECT_EQ(base64url_decode("Zm9vY"), std::nullopt);  // impossible length
  EXPECT_EQ(base64url_decode("Zm+v"), std::nullopt);   // standard alphabet
  EXPECT_EQ(base64url_decode("Zm/v"), std::nullopt);
  EXPECT_EQ(base64url_decode("Zm9 "), std::nullopt);
  EXPECT_EQ(base64url_decode(std::string("Zm\0v", 4)), std::nullopt);
  EXPECT_EQ(base64url_decode("Zh"), std::nullopt);  // non-zero trailing bits
}

TEST(CryptoTest, RandomBase62LengthAlphabetAndUniqueness) {
  EXPECT_EQ(random_base62(0), "");
  const std::string first = random_base62(64);
  const std::string second = random_base62(64);
  EXPECT_EQ(first.size(), 64u);
  EXPECT_NE(first, second);
  std::set<char> seen;
  for (const char character : random_base62(10000)) {
    ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(character))) << character;
    seen.insert(character);
  }
  // 10000 draws miss any given character with probability ~1e-71.
  EXPECT_EQ(seen.size(), 62u);
}

TEST(CryptoTest, RandomBytesLength) {
  EXPECT_EQ(random_bytes(0).size(), 0u);
  EXPECT_EQ(random_bytes(33).size(), 33u);
  EXPECT_NE(random_bytes(32), random_bytes(32));
}

TEST(CryptoTest, ConstantTimeEquals) {
  EXPECT_TRUE(constant_time_equals("", ""));
  EXPECT_TRUE(constant_time_equals("secret", "secret"));
  EXPECT_FALSE(constant_time_equals("secret", "secreT"));
  EXPECT_FALSE(constant_time_equals("secret", "secret2"));
  EXPECT_FALSE(constant_time_equals("", "a"));
}

class CryptoAesGcmTest : public ::testing::Test {
 protected:
  std::string key_ = random_bytes(kAesKeyBytes);
};

TEST_F(CryptoAesGcmTest, RoundTrip) {
  for (const std::string& plaintext : {std::string(), std::string("x"), all_byte_values()}) {
    const auto sealed = aes_gcm_encrypt(key_, plaintext);
    ASSERT_TRUE(sealed.ok());
    EXPECT_EQ(sealed->size(), kAesNonceBytes + plaintext.size() + kAesTagBytes);
    const auto opened = aes_gcm_decrypt(key_, *sealed);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(*opened, plaintext);
  }
}

TEST_F(CryptoAesGcmTest, FreshNonceEachCall) {
  const auto first = aes_gcm_encrypt(key_, "same plaintext");
  const auto second = aes_gcm_encrypt(key_, "same plaintext");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->substr(0, kAesNonceBytes), second->substr(0, kAesNonceBytes));
  EXPECT_NE(*first, *second);
}

TEST_F(CryptoAesGcmTest, TamperingFails) {
  const auto sealed = aes_gcm_encrypt(key_, "account number 12345678");
  ASSERT_TRUE(sealed.ok());
  const std::size_t positions[] = {0, kAesNonceBytes, kAesNonceBytes + 5, sealed->size() - 1};
  for (const std::size_t position : positions) {
    std::string tampered = *sealed;
    tampered[position] = static_cast<char>(tampered[position] ^ 0x01);
    const auto opened = aes_gcm_decrypt(key_, tampered);
    ASSERT_FALSE(opened.ok()) << position;
    EXPECT_EQ(opened.error().code, model::ErrorCode::internal_error);
    EXPECT_EQ(opened.error().message, "decryption failed");
  }
}

TEST_F(CryptoAesGcmTest, WrongKeyAndShortInputFail) {
  const auto sealed = aes_gcm_encrypt(key_, "payload");
  ASSERT_TRUE(sealed.ok());
  EXPECT_FALSE(aes_gcm_decrypt(random_bytes(kAesKeyBytes), *sealed).ok());
  EXPECT_FALSE(aes_gcm_decrypt(key_, sealed->substr(0, kAesNonceBytes + kAesTagBytes - 1)).ok());
  EXPECT_FALSE(aes_gcm_decrypt(key_, "").ok());
  // Dropping one ciphertext byte keeps the length valid but breaks the tag.
  EXPECT_FALSE(aes_gcm_decrypt(key_, sealed->substr(1)).ok());
}

TEST_F(CryptoAesGcmTest, WrongKeyLengthIsAnError) {
  EXPECT_FALSE(aes_gcm_encrypt(std::string(16, 'k'), "payload").ok());
  EXPECT_FALSE(aes_gcm_encrypt(std::string(33, 'k'), "payload").ok());
  const auto sealed = aes_gcm_encrypt(key_, "payload");
  ASSERT_TRUE(sealed.ok());
  EXPECT_FALSE(aes_gcm_decrypt(key_.substr(0, 31), *sealed).ok());
}

}  // namespace
}  // namespace payrail::infra::crypto

namespace payrail::infra::crypto {
namespace {

TEST(DataKeyTest, SealsAndOpensAndRefusesBadKeysAndTampering) {
  EXPECT_FALSE(DataKey::from_hex("").ok());
  EXPECT_FALSE(DataKey::from_hex(std::string(62, 'a')).ok());
  EXPECT_FALSE(DataKey::from_hex(std::string(63, 'a') + "g").ok());
  const auto key = DataKey::from_hex(hex_encode(random_bytes(32)));
  ASSERT_TRUE(key.ok());
  const auto sealed = key->seal("DE89370400440532013000");
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(sealed->find("DE89370400440532013000"), std::string::npos);
  EXPECT_NE(*sealed, *key->seal("DE89370400440532013000"));  // a fresh nonce every time
  EXPECT_EQ(*key->open(*sealed), "DE89370400440532013000");
  auto tampered = *sealed;
  tampered[14] ^= 1;
  EXPECT_FALSE(key->open(tampered).ok());
  EXPECT_FALSE(DataKey::from_hex(hex_encode(random_bytes(32)))->open(*sealed).ok());
}

// During a rotation: sealed with the new (current) key, opened with either.
TEST(DataKeyTest, ARotationOpensWithThePreviousKeyAndSealsWithTheCurrentOne) {
  const auto old_hex = hex_encode(random_bytes(32));
  const auto new_hex = hex_encode(random_bytes(32));
  const auto old_key = *DataKey::from_hex(old_hex);
  const auto rotating = DataKey::from_hex(new_hex, old_hex);
  ASSERT_TRUE(rotating.ok());
  const auto sealed_before = *old_key.seal("whsec_before");
  EXPECT_EQ(*rotating->open(sealed_before), "whsec_before");
  const auto sealed_during = *rotating->seal("whsec_during");
  EXPECT_FALSE(old_key.open(sealed_during).ok());
  EXPECT_EQ(*DataKey::from_hex(new_hex)->open(sealed_during), "whsec_during");
  // A value sealed by neither key stays unreadable; a malformed previous key is refused.
  EXPECT_FALSE(rotating->open(*DataKey::from_hex(hex_encode(random_bytes(32)))->seal("x")).ok());
  const auto malformed = DataKey::from_hex(new_hex, "abc");
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().message.find("PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS"),
            std::string::npos);
}

}  // namespace
}  // namespace payrail::infra::crypto
