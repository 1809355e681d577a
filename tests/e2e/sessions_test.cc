// Identity-provider sessions on the development (HS256) stack: POST /v1/organizations accepts a
// valid session and refuses every forged, stale or misdirected one with 401 session_invalid.
#include <gtest/gtest.h>

#include <ctime>
#include <sstream>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr const char* kOrganizationBody =
    R"({"legal_name":"Session Test Ltd","display_name":"Session Test","country":"CA"})";
constexpr std::int64_t kLeewaySeconds = 30;

class Sessions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {}, .env = {}}); }
  static void TearDownTestSuite() { delete stack_; }

  static HttpResult create_with(const std::string& token) {
    return stack_->http().post("/v1/organizations", kOrganizationBody, with_session(token));
  }
  static void expect_refused(const std::string& token, const std::string& why) {
    EXPECT_TRUE(is_error(create_with(token), 401, "session_invalid", "")) << why;
  }
  static std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

  static TestStack* stack_;
};
TestStack* Sessions::stack_ = nullptr;

TEST_F(Sessions, ValidSessionCreatesAnOrganization) {
  const auto response = create_with(jwt_hs256(kHs256Header, claims_json(valid_claims())));
  EXPECT_TRUE(has_status(response, 201));
  EXPECT_TRUE(has_status(create_with(stack_->dev_session(unique_email())), 201));
}

TEST_F(Sessions, CliDevSessionMintsAWorkingToken) {
  const auto email = unique_email("cli");
  const auto [code, output] = stack_->cli({"dev-session", "--email", email});
  ASSERT_EQ(code, 0) << output;
  std::istringstream words(output);
  std::string token;
  while (words >> token && token.rfind("eyJ", 0) != 0) {
  }
  ASSERT_EQ(token.rfind("eyJ", 0), 0u) << output;
  EXPECT_TRUE(has_status(create_with(token), 201));
}

TEST_F(Sessions, ExpiredBeyondLeewayIsRefused) {
  auto claims = valid_claims();
  claims.issued_at = claims.not_before = now() - 7200;
  claims.expires_at = now() - kLeewaySeconds - 90;
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "expired");
  // Within the leeway the clock skew is forgiven.
  claims.expires_at = now() - 5;
  EXPECT_TRUE(has_status(create_with(jwt_hs256(kHs256Header, claims_json(claims))), 201));
}

TEST_F(Sessions, NotYetValidIsRefused) {
  auto claims = valid_claims();
  claims.not_before = now() + kLeewaySeconds + 300;
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "nbf in the future");
  // A few seconds of clock skew are forgiven.
  claims.not_before = now() + 5;
  EXPECT_TRUE(has_status(create_with(jwt_hs256(kHs256Header, claims_json(claims))), 201));
}

TEST_F(Sessions, WrongOrMissingIssuerIsRefused) {
  auto claims = valid_claims();
  claims.issuer = "https://evil.example.com";
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "wrong issuer");
  claims.issuer = "PAYRAIL-DEV";
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "issuer differs in case");
  claims.issuer.reset();
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "no issuer");
}

TEST_F(Sessions, WrongOrMissingAudienceIsRefused) {
  auto claims = valid_claims();
  claims.audience = "another-api";
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "wrong audience");
  claims.audience.reset();
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "no audience");
}

TEST_F(Sessions, BadSignatureIsRefused) {
  const auto claims = claims_json(valid_claims());
  expect_refused(jwt_hs256(kHs256Header, claims, "another-secret-of-at-least-32-bytes-long!"),
                 "other secret");
  const auto valid = jwt_hs256(kHs256Header, claims);
  const auto signature = valid.substr(valid.rfind('.') + 1);
  expect_refused(valid.substr(0, valid.rfind('.') + 1) + signature.substr(0, 20), "truncated");
  expect_refused(valid.substr(0, valid.rfind('.') + 1), "empty signature");
  // A valid signature moved onto other claims.
  auto other = valid_claims();
  other.subject = "user|someone-else";
  const auto forged = jwt_hs256(kHs256Header, claims_json(other));
  expect_refused(forged.substr(0, forged.rfind('.') + 1) + signature, "signature from elsewhere");
}

TEST_F(Sessions, AlgNoneIsRefused) {
  const auto claims = claims_json(valid_claims());
  for (const std::string header : {R"({"alg":"none","typ":"JWT"})", R"({"alg":"None"})",
                                   R"({"alg":"NONE","typ":"JWT"})", R"({"typ":"JWT"})"}) {
    expect_refused(jwt_with_signature(header, claims, ""), header + " unsigned");
    // Even with a signature that is right for the content.
    expect_refused(jwt_hs256(header, claims), header + " HMAC-signed");
  }
}

TEST_F(Sessions, AlgorithmConfusionIsRefused) {
  const auto claims = claims_json(valid_claims());
  const auto& rsa = RsaKeyPair::shared();
  expect_refused(rsa.jwt(kRs256Header, claims), "RS256 token on an HS256 stack");
  expect_refused(jwt_hs256(kRs256Header, claims), "RS256 header, HMAC with the real secret");
  expect_refused(jwt_hs256(R"({"alg":"HS512","typ":"JWT"})", claims), "HS512 header");
  expect_refused(jwt_hs256(kHs256Header, claims, rsa.public_key_pem()),
                 "HS256 with a public key as the secret");
}

TEST_F(Sessions, MalformedTokensAreRefused) {
  const auto valid = jwt_hs256(kHs256Header, claims_json(valid_claims()));
  const std::vector<std::string> tokens{
      "abc",
      "a.b",
      valid + ".extra",
      "!!!.???.###",
      "." + valid.substr(valid.find('.')),
      infra::crypto::base64url_encode("not json") + valid.substr(valid.find('.')),
      valid.substr(0, valid.size() - 1) + "=",
      std::string(9 * 1024, 'a') + "." + valid,
  };
  for (const auto& token : tokens) expect_refused(token, token.substr(0, 40));
}

TEST_F(Sessions, SessionWithoutSubjectOrEmailIsRefused) {
  auto claims = valid_claims();
  claims.subject.reset();
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "no sub");
  claims = valid_claims();
  claims.email.reset();
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "no email");
  claims = valid_claims();
  claims.expires_at.reset();
  expect_refused(jwt_hs256(kHs256Header, claims_json(claims)), "no exp");
}

TEST_F(Sessions, ApiKeyIsNotASession) {
  const auto organization = stack_->create_organization();
  EXPECT_TRUE(is_error(
      stack_->http().post("/v1/organizations", kOrganizationBody, with_key(organization.test_key)),
      403, "session_required"));
  EXPECT_TRUE(is_error(stack_->http().post("/v1/organizations", kOrganizationBody,
                                           {{"Authorization", "Bearer " + organization.test_key}}),
                       403, "session_required"));
}

TEST_F(Sessions, NoCredentialsIs401) {
  EXPECT_TRUE(is_error(stack_->http().post("/v1/organizations", kOrganizationBody), 401,
                       "session_invalid"));
}

TEST_F(Sessions, SessionIsNotAnApiKey) {
  const auto session = stack_->dev_session(unique_email());
  EXPECT_TRUE(
      is_error(stack_->http().get("/v1/api-keys", with_session(session)), 401, "api_key_invalid"));
  EXPECT_TRUE(is_error(stack_->http().get("/v1/organization", with_session(session)), 401,
                       "api_key_invalid"));
}

}  // namespace
}  // namespace payrail::testing
