// Endpoint secrets: whsec_ + at least 192 random bits, sealed with AES-256-GCM at rest.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/store/webhooks/secrets.h"

namespace payrail::infra::webhooks {
namespace {

TEST(WebhookSecret, HasPrefixAndAtLeast192RandomBits) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const auto secret = new_endpoint_secret();
    ASSERT_EQ(secret.rfind("whsec_", 0), 0u);
    const auto random_part = secret.substr(6);
    EXPECT_GE(random_part.size() * std::log2(62.0), 192.0);
    for (const char c : random_part) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
    seen.insert(secret);
  }
  EXPECT_EQ(seen.size(), 200u);
}

TEST(WebhookSecret, SealedSecretOpensOnlyWithTheKey) {
  const auto key = *encryption_key_from_hex(crypto::hex_encode(crypto::random_bytes(32)));
  const auto secret = new_endpoint_secret();
  const auto sealed = seal_secret(key, secret);
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(sealed->find(secret), std::string::npos);  // never stored in clear
  EXPECT_EQ(*open_secret(key, *sealed), secret);
  const auto other_key = crypto::random_bytes(32);
  EXPECT_FALSE(open_secret(other_key, *sealed).ok());
  auto tampered = *sealed;
  tampered[tampered.size() / 2] ^= 0x01;
  EXPECT_FALSE(open_secret(key, tampered).ok());
}

TEST(WebhookSecret, EncryptionKeyMustBe64HexCharacters) {
  EXPECT_TRUE(encryption_key_from_hex(std::string(64, 'a')).ok());
  EXPECT_FALSE(encryption_key_from_hex("").ok());
  EXPECT_FALSE(encryption_key_from_hex(std::string(62, 'a')).ok());
  EXPECT_FALSE(encryption_key_from_hex(std::string(63, 'a') + "z").ok());
}

}  // namespace
}  // namespace payrail::infra::webhooks
