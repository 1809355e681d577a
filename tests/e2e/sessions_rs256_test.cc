// Identity-provider sessions on a production-like stack that verifies RS256 against a JWKS file
// (PAYRAIL_IDP_JWKS_FILE, no HS256 secret): the classic algorithm confusion (an HS256 token
// MACed with the public key) and tokens from other keys are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr const char* kOrganizationBody =
    R"({"legal_name":"Rsa Test Ltd","display_name":"Rsa Test","country":"DE"})";
constexpr const char* kKeyId = "test-key-1";

std::string write_jwks_file() {
  const auto path = "/tmp/payrail-test-" + std::to_string(getpid()) + "-jwks.json";
  std::ofstream(path) << RsaKeyPair::shared().jwks_json(kKeyId);
  return path;
}

class RsaSessions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    jwks_path_ = new std::string(write_jwks_file());
    // An empty HS256 secret counts as unset, so the verifier runs in RS256 mode only.
    stack_ = new TestStack(
        {.workers = {},
         .env = {{"PAYRAIL_IDP_HS256_SECRET", ""}, {"PAYRAIL_IDP_JWKS_FILE", *jwks_path_}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    std::remove(jwks_path_->c_str());
    delete jwks_path_;
  }

  static HttpResult create_with(const std::string& token) {
    return stack_->http().post("/v1/organizations", kOrganizationBody, with_session(token));
  }
  static void expect_refused(const std::string& token, const std::string& why) {
    EXPECT_TRUE(is_error(create_with(token), 401, "session_invalid", "")) << why;
  }

  static TestStack* stack_;
  static std::string* jwks_path_;
};
TestStack* RsaSessions::stack_ = nullptr;
std::string* RsaSessions::jwks_path_ = nullptr;

std::string rs256_header(const std::string& key_id) {
  return R"({"alg":"RS256","typ":"JWT","kid":")" + key_id + R"("})";
}

TEST_F(RsaSessions, ValidRs256SessionCreatesAnOrganization) {
  const auto claims = claims_json(valid_claims());
  EXPECT_TRUE(has_status(create_with(RsaKeyPair::shared().jwt(rs256_header(kKeyId), claims)), 201));
  EXPECT_TRUE(has_status(create_with(RsaKeyPair::shared().jwt(kRs256Header, claims)), 201));
}

TEST_F(RsaSessions, HmacTokenKeyedWithThePublicKeyIsRefused) {
  const auto claims = claims_json(valid_claims());
  const auto& rsa = RsaKeyPair::shared();
  expect_refused(jwt_hs256(kHs256Header, claims, rsa.public_key_pem()), "HS256 keyed with PEM");
  expect_refused(jwt_hs256(kHs256Header, claims, rsa.jwks_json(kKeyId)), "HS256 keyed with JWKS");
  expect_refused(jwt_hs256(kHs256Header, claims, kTestSessionSecret), "HS256 dev-style token");
  expect_refused(jwt_hs256(rs256_header(kKeyId), claims, rsa.public_key_pem()),
                 "RS256 header, HMAC signature");
}

TEST_F(RsaSessions, TokenFromAnotherKeyIsRefused) {
  const RsaKeyPair stranger;
  const auto claims = claims_json(valid_claims());
  expect_refused(stranger.jwt(rs256_header(kKeyId), claims), "other key, trusted kid");
  expect_refused(stranger.jwt(kRs256Header, claims), "other key, no kid");
  expect_refused(RsaKeyPair::shared().jwt(rs256_header("unknown-kid"), claims), "unknown kid");
}

TEST_F(RsaSessions, AlgNoneIsRefused) {
  const auto claims = claims_json(valid_claims());
  expect_refused(jwt_with_signature(R"({"alg":"none","typ":"JWT"})", claims, ""), "alg none");
}

TEST_F(RsaSessions, WrongIssuerOrAudienceIsRefusedDespiteAValidSignature) {
  auto claims = valid_claims();
  claims.issuer = "https://evil.example.com";
  expect_refused(RsaKeyPair::shared().jwt(kRs256Header, claims_json(claims)), "issuer");
  claims = valid_claims();
  claims.audience = "another-api";
  expect_refused(RsaKeyPair::shared().jwt(kRs256Header, claims_json(claims)), "audience");
}

}  // namespace
}  // namespace payrail::testing
