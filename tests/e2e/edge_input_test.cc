// Hostile input at the edges (issue 12), over HTTPS through the TLS-terminating proxy as
// infra/up runs it: strings that are not clean UTF-8 anywhere they enter, NUL bytes, lengths in
// characters, timestamps out of range, webhook scheme case, ambiguous credentials and what a key
// may grant. Every refusal is the documented envelope, never a 500, and always valid UTF-8.
#include <gtest/gtest.h>

#include <string>

#include "schemas/model/common/text.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

class EdgeInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ =
        new TestStack({.workers = {}, .env = {{"PAYRAIL_SCREENING_WAIT_MS", "0"}}, .tls = true});
    organization_ = new TestOrganization(stack_->create_organization());
    other_ = new TestOrganization(stack_->create_organization());
  }
  static void TearDownTestSuite() {
    delete other_;
    delete organization_;
    delete stack_;
  }
  static const HttpClient& http() { return stack_->http(); }
  static Headers key(Headers extra = {}) { return with_key(organization_->test_key, extra); }

  inline static TestStack* stack_ = nullptr;
  inline static TestOrganization* organization_ = nullptr;
  inline static TestOrganization* other_ = nullptr;
};

::testing::AssertionResult refused(const HttpResult& response, int status, std::string_view code,
                                   std::string_view param) {
  if (!model::text::is_clean(response.body)) {
    return ::testing::AssertionFailure() << "envelope is not clean UTF-8: " << response.body;
  }
  return is_error(response, status, code, param);
}

std::string repeated(std::string_view text, int count) {
  std::string result;
  for (int i = 0; i < count; ++i) result += text;
  return result;
}

TEST_F(EdgeInput, ServedOverHttpsWithTheGeneratedCertificate) {
  EXPECT_EQ(stack_->api_url().rfind("https://localhost:", 0), 0u);
  EXPECT_TRUE(has_status(http().get("/v1/api-keys", key()), 200));
}

TEST_F(EdgeInput, LoneSurrogatesAreRefusedWithTheField) {
  EXPECT_TRUE(refused(http().post("/v1/api-keys", R"({"mode":"test","name":"a\udc00"})", key()),
                      400, "bad_request", "name"));
  const auto body = payout_body("1.00", "USDC", "ethereum", random_evm_address());
  const auto with_metadata = [&](const std::string& metadata) {
    return body.substr(0, body.size() - 1) + R"(,"metadata":)" + metadata + "}";
  };
  EXPECT_TRUE(refused(create_payout(http(), organization_->test_key, "surrogate-value",
                                    with_metadata(R"({"note":"\udc00"})")),
                      400, "bad_request", "metadata.note"));
  EXPECT_TRUE(refused(create_payout(http(), organization_->test_key, "surrogate-key",
                                    with_metadata(R"({"\udc00":"x"})")),
                      400, "bad_request", "metadata.\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"));
  EXPECT_TRUE(refused(http().post("/v1/organizations",
                                  R"({"legal_name":"\udc00","display_name":"A","country":"CA"})",
                                  with_session(stack_->dev_session(unique_email()))),
                      400, "bad_request", "legal_name"));
}

TEST_F(EdgeInput, SessionClaimsAreCheckedLikeEveryString) {
  auto claims = valid_claims();
  claims.email = "owner@example.com";
  const std::string good = claims_json(claims);
  const std::string bad_email =
      good.substr(0, good.find("owner@")) + "ow\\udc00ner@" + good.substr(good.find("owner@") + 6);
  const auto token = jwt_hs256(kHs256Header, bad_email);
  EXPECT_TRUE(refused(
      http().post("/v1/organizations", R"({"legal_name":"A","display_name":"A","country":"CA"})",
                  with_session(token)),
      401, "session_invalid", "email"));
  claims = valid_claims();
  claims.subject = "user\\udc00";
  EXPECT_TRUE(refused(
      http().post("/v1/organizations", R"({"legal_name":"A","display_name":"A","country":"CA"})",
                  with_session(jwt_hs256(kHs256Header, claims_json(claims)))),
      401, "session_invalid", "sub"));
}

// Fiat payouts and KYB submissions read their strings through the same parser: beneficiary names,
// account fields, owners' names, list filters.
TEST_F(EdgeInput, FiatPayoutAndKybStringsAreCheckedLikeEveryString) {
  const auto& mexico = mexico_case();
  EXPECT_TRUE(refused(create_fiat_payout(http(), organization_->test_key, "fiat-surrogate",
                                         fiat_payout_body("10.00", mexico, "Ana \\udc00")),
                      400, "bad_request", "beneficiary.name"));
  const auto clabe = mexico.value_of("clabe");
  const auto with_nul = fiat_payout_body("10.00", mexico.currency, mexico.country, "Ana",
                                         R"({"type":"clabe","clabe":")" + clabe + R"(\u0000"})");
  EXPECT_TRUE(refused(create_fiat_payout(http(), organization_->test_key, "fiat-nul", with_nul),
                      400, "bad_request", "beneficiary.account.clabe"));
  const auto fits = create_fiat_payout(
      http(), organization_->test_key, "fiat-accented",
      fiat_payout_body("10.00", mexico, repeated("é", 140),
                       R"({")" + repeated("é", 40) + R"(":")" + repeated("é", 500) + R"("})"));
  EXPECT_TRUE(fits.status == 201 || fits.status == 202) << fits.status << " " << fits.body;
  EXPECT_TRUE(refused(create_fiat_payout(http(), organization_->test_key, "fiat-long-name",
                                         fiat_payout_body("10.00", mexico, repeated("é", 141))),
                      400, "bad_request", "beneficiary.name"));
  std::string kyb = kyb_submission_body();
  kyb.replace(kyb.find("Ada Lovelace"), 12, "Ada \\udc00");
  EXPECT_TRUE(
      refused(http().post("/v1/kyb", kyb, key()), 400, "bad_request", "beneficial_owners.0.name"));
  EXPECT_TRUE(refused(http().get("/v1/fiat-payouts?starting_after=fp_%FF", key()), 400,
                      "bad_request", "starting_after"));
  EXPECT_TRUE(refused(http().get("/v1/fiat-payouts?created_gte=0000-01-01T00:00:00Z", key()), 400,
                      "bad_request", "created_gte"));
  EXPECT_TRUE(refused(http().get("/v1/kyb?created_lte=0000-01-01T00:00:00Z", key()), 400,
                      "bad_request", "created_lte"));
}

TEST_F(EdgeInput, InvalidBytesInQueryAndHeadersAreRefusedByName) {
  EXPECT_TRUE(refused(http().get("/v1/payouts?starting_after=po_%FF", key()), 400, "bad_request",
                      "starting_after"));
  EXPECT_TRUE(refused(http().get("/v1/payouts?limit=%00", key()), 400, "bad_request", "limit"));
  // Percent-encoded bytes in a path id are an id that cannot exist (raw ones: http_framing_test).
  EXPECT_TRUE(refused(http().get("/v1/payouts/po_%FF%FE", key()), 404, "resource_missing", ""));
  EXPECT_TRUE(refused(
      http().post("/v1/api-keys", R"({"mode":"test"})",
                  with_session(organization_->session, {{"Payrail-Organization", "org_\xFF\xFE"}})),
      400, "bad_request", "Payrail-Organization"));
}

TEST_F(EdgeInput, NulInsideStringsIsRefusedNotTruncated) {
  EXPECT_TRUE(refused(
      http().post("/v1/api-keys", R"({"mode":"test","scopes":["payouts:read\u0000evil"]})", key()),
      400, "bad_request", "scopes.0"));
  EXPECT_TRUE(refused(http().post("/v1/webhooks",
                                  R"({"url":"https://127.0.0.1:9/hook",)"
                                  R"("events":["payout.completed\u0000x"]})",
                                  key()),
                      400, "bad_request", "events.0"));
  // A whole JSON object, a NUL byte, then anything: the NUL does not end the body.
  const std::string body = std::string(R"({"mode":"test"})") + std::string(1, '\0') + "junk";
  EXPECT_TRUE(refused(http().post("/v1/api-keys", body, key()), 400, "bad_request", ""));
}

TEST_F(EdgeInput, MetadataLengthsAreCharacters) {
  const auto body = payout_body("1.00", "USDC", "ethereum", random_evm_address());
  const auto with_metadata = [&](const std::string& key, const std::string& value) {
    return body.substr(0, body.size() - 1) + R"(,"metadata":{")" + key + R"(":")" + value +
           R"("}})";
  };
  const auto fits = create_payout(http(), organization_->test_key, "metadata-accented",
                                  with_metadata(repeated("é", 40), repeated("é", 500)));
  EXPECT_TRUE(fits.status == 201 || fits.status == 202) << fits.status << " " << fits.body;
  EXPECT_TRUE(refused(create_payout(http(), organization_->test_key, "metadata-long-value",
                                    with_metadata("note", repeated("é", 501))),
                      400, "bad_request", "metadata.note"));
  EXPECT_TRUE(refused(create_payout(http(), organization_->test_key, "metadata-long-key",
                                    with_metadata(repeated("é", 41), "v")),
                      400, "bad_request", "metadata." + repeated("é", 41)));
}

TEST_F(EdgeInput, TimestampsOutsideTheSaneRangeAre400) {
  for (const std::string value :
       {"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
        "99999-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-21T00:00:00"}) {
    EXPECT_TRUE(refused(http().get("/v1/payouts?created_gte=" + value, key()), 400, "bad_request",
                        "created_gte"))
        << value;
    EXPECT_TRUE(refused(http().get("/v1/payouts?created_lte=" + value, key()), 400, "bad_request",
                        "created_lte"))
        << value;
  }
  EXPECT_TRUE(has_status(http().get("/v1/payouts?created_gte=1970-01-01T00:00:00Z", key()), 200));
  EXPECT_TRUE(has_status(http().get("/v1/payouts?created_lte=9999-12-31T23:59:59Z", key()), 200));
}

TEST_F(EdgeInput, WebhookSchemeIsCaseInsensitiveAndStoredLowerCase) {
  for (const std::string scheme : {"HTTPS", "Https"}) {
    const auto created = http().post(
        "/v1/webhooks",
        R"({"url":")" + scheme + R"(://127.0.0.1:9/hook","events":["payout.completed"]})", key());
    ASSERT_TRUE(has_status(created, 201)) << created.body;
    EXPECT_STREQ(created.json()["url"].GetString(), "https://127.0.0.1:9/hook");
  }
  EXPECT_TRUE(refused(
      http().post("/v1/webhooks",
                  R"({"url":"HTTP://127.0.0.1:9/hook","events":["payout.completed"]})", key()),
      400, "bad_request", "url"));
}

TEST_F(EdgeInput, AnyNonJsonMediaTypeIs415) {
  for (const std::string type :
       {"application/jsonx", "application/json-patch+json", "text/json", "application/x-json"}) {
    EXPECT_TRUE(
        refused(http().post("/v1/api-keys", R"({"mode":"test"})", key({{"Content-Type", type}})),
                415, "bad_request", ""))
        << type;
  }
}

TEST_F(EdgeInput, AmbiguousCredentialsAreRefused) {
  const Headers two_keys{{"X-API-Key", organization_->test_key}, {"X-API-Key", other_->test_key}};
  EXPECT_TRUE(refused(http().get("/v1/api-keys", two_keys), 401, "credentials_ambiguous", ""));
  EXPECT_TRUE(
      refused(http().get("/v1/api-keys", key({{"Authorization", "Bearer " + other_->test_key}})),
              401, "credentials_ambiguous", ""));
  EXPECT_TRUE(refused(http().post("/v1/api-keys", R"({"mode":"test"})",
                                  key({{"Authorization", "Bearer " + other_->session},
                                       {"Payrail-Organization", other_->id}})),
                      401, "credentials_ambiguous", ""));
  // The same key twice over is one credential.
  EXPECT_TRUE(has_status(
      http().get("/v1/api-keys", key({{"Authorization", "Bearer " + organization_->test_key}})),
      200));
}

TEST_F(EdgeInput, AKeyGrantsAtMostItsOwnScopes) {
  const auto narrow = http().post(
      "/v1/api-keys", R"({"mode":"test","scopes":["organization:write"]})",
      with_session(organization_->session, {{"Payrail-Organization", organization_->id}}));
  ASSERT_TRUE(has_status(narrow, 201)) << narrow.body;
  const std::string narrow_key = narrow.json()["key"].GetString();
  const auto minted = http().post("/v1/api-keys", R"({"mode":"test"})", with_key(narrow_key));
  ASSERT_TRUE(has_status(minted, 201)) << minted.body;
  const auto scopes = minted.json()["scopes"].GetArray();
  ASSERT_EQ(scopes.Size(), 1u);
  EXPECT_STREQ(scopes[0].GetString(), "organization:write");
  EXPECT_TRUE(
      refused(http().post("/v1/api-keys",
                          R"({"mode":"test","scopes":["organization:write","payouts:write"]})",
                          with_key(narrow_key)),
              403, "scope_insufficient", "scopes.1"));
  // An owner's session grants any scope, all nine by default.
  const auto full = http().post(
      "/v1/api-keys", R"({"mode":"test"})",
      with_session(organization_->session, {{"Payrail-Organization", organization_->id}}));
  ASSERT_TRUE(has_status(full, 201));
  EXPECT_EQ(full.json()["scopes"].Size(), 9u);
}

}  // namespace
}  // namespace payrail::testing
