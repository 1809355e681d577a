// Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>" keyed with the whole
// whsec_ secret>. The expected values are computed here with OpenSSL's HMAC() directly (and one
// fixed vector produced with `openssl dgst -sha256 -hmac`), never with the code under test.
#include "infra/adapters/webhooks/signature.h"
#include "infra/store/webhooks/secrets.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>

namespace payrail::infra::webhooks {
namespace {

constexpr const char* kSecret = "whsec_K3yForTestsOnly0123456789abcdefghijklmn";
constexpr const char* kBody =
    R"({"event":"payout.completed","event_id":"evt_123","amount":"10.00"})";
constexpr std::int64_t kTimestamp = 1700000000;

std::string reference_hmac_hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &length);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x", mac[i]);
    hex += byte;
  }
  return hex;
}

TEST(WebhookSignature, MatchesFixedVectorFromOpensslCli) {
  EXPECT_EQ(signature_header(kSecret, kTimestamp, kBody),
            "t=1700000000,v1=1cf9ea18f49b38c92ef16e215124778e5df311ecbdabb77660ece92eefb6c6eb");
}

TEST(WebhookSignature, MatchesIndependentHmacOverTimestampDotBody) {
  for (const std::string& body : {std::string(""), std::string("{}"), std::string(kBody),
                                  std::string("{\"x\":\"\xC3\xA9\\n\"}"), std::string(5000, 'a')}) {
    const auto expected = "t=1712345678,v1=" + reference_hmac_hex(kSecret, "1712345678." + body);
    EXPECT_EQ(signature_header(kSecret, 1712345678, body), expected);
  }
}

TEST(WebhookSignature, KeyIsTheWholeSecretStringIncludingPrefix) {
  const std::string without_prefix = std::string(kSecret).substr(kSecretPrefix.size());
  EXPECT_NE(
      signature_header(kSecret, kTimestamp, kBody),
      "t=1700000000,v1=" + reference_hmac_hex(without_prefix, "1700000000." + std::string(kBody)));
}

TEST(WebhookSignature, VerifiesValidAndRejectsTamperedOrWrongSecret) {
  const auto header = signature_header(kSecret, kTimestamp, kBody);
  EXPECT_TRUE(verify_signature(header, kSecret, kBody, kTimestamp + 10));
  std::string tampered = kBody;
  tampered[tampered.size() - 3] = '1';  // "10.00" -> "10.10"
  EXPECT_FALSE(verify_signature(header, kSecret, tampered, kTimestamp + 10));
  EXPECT_FALSE(verify_signature(header, kSecret, std::string(kBody) + " ", kTimestamp + 10));
  EXPECT_FALSE(verify_signature(header, "whsec_other", kBody, kTimestamp + 10));
  // A replayed signature with a changed timestamp does not verify.
  auto moved = header;
  moved.replace(2, 10, "1700000001");
  EXPECT_FALSE(verify_signature(moved, kSecret, kBody, kTimestamp + 10));
}

TEST(WebhookSignature, RejectsTimestampsOutsideTolerance) {
  const auto header = signature_header(kSecret, kTimestamp, kBody);
  EXPECT_TRUE(verify_signature(header, kSecret, kBody, kTimestamp + 300));
  EXPECT_FALSE(verify_signature(header, kSecret, kBody, kTimestamp + 301));
  EXPECT_FALSE(verify_signature(header, kSecret, kBody, kTimestamp - 301));
}

TEST(WebhookSignature, RejectsMalformedHeaders) {
  const auto v1 = reference_hmac_hex(kSecret, "1700000000." + std::string(kBody));
  for (const std::string& header :
       {std::string(""), "v1=" + v1, std::string("t=1700000000"), "t=abc,v1=" + v1, "t=-5,v1=" + v1,
        "t=1700000000,v1=" + v1.substr(1), "t=1700000000,v1=" + v1 + "00"}) {
    EXPECT_FALSE(verify_signature(header, kSecret, kBody, kTimestamp)) << header;
  }
  EXPECT_TRUE(verify_signature("t=1700000000,v0=ignored,v1=" + v1, kSecret, kBody, kTimestamp));
  const auto parsed = parse_signature_header("t=1700000000,v1=" + v1);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->timestamp_s, kTimestamp);
  EXPECT_EQ(parsed->v1_hex, v1);
}

}  // namespace
}  // namespace payrail::infra::webhooks
