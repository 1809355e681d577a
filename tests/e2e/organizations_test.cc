// POST /v1/organizations and GET /v1/organization: the created resource, its first test key
// (shown once), validation with param, and the seeded sandbox balance (test mode only).
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

const std::regex kTimestamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)");
const std::set<std::string> kAllScopes{
    "payouts:write",      "payouts:read",      "balances:read",
    "webhooks:write",     "webhooks:read",     "organization:read",
    "organization:write", "collections:write", "collections:read"};

class Organizations : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {}, .env = {}}); }
  static void TearDownTestSuite() { delete stack_; }

  static HttpResult create(const std::string& body, const std::string& session = "") {
    return stack_->http().post(
        "/v1/organizations", body,
        with_session(session.empty() ? stack_->dev_session(unique_email()) : session));
  }
  static std::string body(const std::string& legal_name, const std::string& country) {
    return R"({"legal_name":")" + legal_name + R"(","display_name":"Acme","country":")" + country +
           R"("})";
  }
  static void expect_invalid(const std::string& request_body, const std::string& param) {
    EXPECT_TRUE(is_error(create(request_body), 400, "bad_request", param)) << request_body;
  }

  static std::map<std::string, std::pair<std::string, std::string>> balances(
      const std::string& api_key, const std::string& mode) {
    const auto response = stack_->http().get("/v1/balances", with_key(api_key));
    EXPECT_TRUE(has_status(response, 200));
    std::map<std::string, std::pair<std::string, std::string>> by_asset;
    const auto json = response.json();
    EXPECT_STREQ(json["object"].GetString(), "list");
    for (const auto& balance : json["data"].GetArray()) {
      EXPECT_STREQ(balance["object"].GetString(), "balance");
      EXPECT_EQ(std::string(balance["mode"].GetString()), mode);
      by_asset[balance["asset"].GetString()] = {
          normalized_decimal(balance["available"].GetString()),
          normalized_decimal(balance["held"].GetString())};
    }
    return by_asset;
  }

  static TestStack* stack_;
};
TestStack* Organizations::stack_ = nullptr;

void expect_organization_fields(const rapidjson::Value& organization) {
  EXPECT_EQ(std::string(organization["id"].GetString()).rfind("org_", 0), 0u);
  EXPECT_STREQ(organization["object"].GetString(), "organization");
  EXPECT_STREQ(organization["legal_name"].GetString(), "Acme Payments Ltd");
  EXPECT_STREQ(organization["display_name"].GetString(), "Acme");
  EXPECT_STREQ(organization["country"].GetString(), "CA");
  EXPECT_STREQ(organization["status"].GetString(), "active");
  EXPECT_STREQ(organization["kyb_status"].GetString(), "unverified");
  EXPECT_TRUE(std::regex_match(organization["created_at"].GetString(), kTimestamp));
}

TEST_F(Organizations, CreateReturnsTheOrganizationAndItsFirstTestKeyOnce) {
  const auto response = create(body("Acme Payments Ltd", "CA"));
  ASSERT_TRUE(has_status(response, 201));
  const auto json = response.json();
  expect_organization_fields(json);
  const auto& key = json["api_key"];
  const std::string secret = key["key"].GetString();
  EXPECT_EQ(secret.rfind("ck_test_", 0), 0u);
  EXPECT_GE(secret.size(), std::string("ck_test_").size() + 22);  // >= 128 bits of base62
  EXPECT_STREQ(key["object"].GetString(), "api_key");
  EXPECT_EQ(std::string(key["id"].GetString()).rfind("key_", 0), 0u);
  EXPECT_STREQ(key["mode"].GetString(), "test");
  EXPECT_EQ(secret.rfind(key["prefix"].GetString(), 0), 0u);
  EXPECT_LT(std::string(key["prefix"].GetString()).size(), secret.size());
  std::set<std::string> scopes;
  for (const auto& scope : key["scopes"].GetArray()) scopes.insert(scope.GetString());
  EXPECT_EQ(scopes, kAllScopes);

  // The key works at once, and the secret is never shown again.
  const auto organization = stack_->http().get("/v1/organization", with_key(secret));
  ASSERT_TRUE(has_status(organization, 200));
  const auto fetched = organization.json();
  expect_organization_fields(fetched);
  EXPECT_STREQ(fetched["id"].GetString(), json["id"].GetString());
  EXPECT_FALSE(fetched.HasMember("api_key"));
  const auto keys = stack_->http().get("/v1/api-keys", with_key(secret));
  EXPECT_EQ(keys.body.find(secret.substr(16)), std::string::npos);
  EXPECT_FALSE(keys.json()["data"][0].HasMember("key"));
}

TEST_F(Organizations, LegalNameMustBeOneTo200Characters) {
  expect_invalid(body("", "CA"), "legal_name");
  expect_invalid(body(std::string(201, 'a'), "CA"), "legal_name");
  expect_invalid(R"({"legal_name":42,"display_name":"Acme","country":"CA"})", "legal_name");
  expect_invalid(R"({"display_name":"Acme","country":"CA"})", "legal_name");
  EXPECT_TRUE(has_status(create(body(std::string(200, 'a'), "CA")), 201));
  // Characters, not bytes: 200 two-byte characters fit.
  std::string accented;
  for (int i = 0; i < 200; ++i) accented += "\xC3\xA9";
  EXPECT_TRUE(has_status(create(body(accented, "FR")), 201));
}

TEST_F(Organizations, DisplayNameIsRequired) {
  expect_invalid(R"({"legal_name":"Acme","country":"CA"})", "display_name");
  expect_invalid(R"({"legal_name":"Acme","display_name":"","country":"CA"})", "display_name");
}

TEST_F(Organizations, CountryMustBeAnIsoAlpha2Code) {
  for (const std::string country : {"XX", "ca", "CAN", "C", "", "12"}) {
    expect_invalid(body("Acme Payments Ltd", country), "country");
  }
  expect_invalid(R"({"legal_name":"Acme","display_name":"Acme"})", "country");
  expect_invalid(R"({"legal_name":"Acme","display_name":"Acme","country":124})", "country");
  for (const std::string country : {"DE", "MX", "NG", "US"}) {
    EXPECT_TRUE(has_status(create(body("Acme Payments Ltd", country)), 201)) << country;
  }
}

TEST_F(Organizations, SandboxBalanceIsSeededInTestModeOnly) {
  const auto session = stack_->dev_session(unique_email("owner"));
  const auto created = create(body("Acme Payments Ltd", "CA"), session);
  ASSERT_TRUE(has_status(created, 201));
  const auto json = created.json();
  const std::string org_id = json["id"].GetString();
  const auto test_balances = balances(json["api_key"]["key"].GetString(), "test");
  using Amounts = std::pair<std::string, std::string>;
  EXPECT_EQ(test_balances.at("USDC"), Amounts("1000000", "0"));
  EXPECT_EQ(test_balances.at("USDT"), Amounts("1000000", "0"));
  EXPECT_EQ(test_balances.at("ETH"), Amounts("1000", "0"));
  EXPECT_EQ(test_balances.size(), 3u);

  stack_->verify_business({org_id, json["api_key"]["key"].GetString(), session});
  const auto live_key =
      stack_->http().post("/v1/api-keys", R"({"mode":"live"})",
                          with_session(session, {{"Payrail-Organization", org_id}}));
  ASSERT_TRUE(has_status(live_key, 201));
  const auto live_balances = balances(live_key.json()["key"].GetString(), "live");
  for (const std::string asset : {"USDC", "USDT", "ETH"}) {
    EXPECT_EQ(live_balances.at(asset), Amounts("0", "0")) << asset;
  }
  EXPECT_EQ(live_balances.size(), 3u);
}

TEST_F(Organizations, UnknownQueryOnBalancesIsRejected) {
  const auto organization = stack_->create_organization();
  EXPECT_TRUE(
      is_error(stack_->http().get("/v1/balances?asset=USDC", with_key(organization.test_key)), 400,
               "bad_request", "asset"));
}

TEST_F(Organizations, SameMemberMayOwnSeveralOrganizations) {
  const auto session = stack_->dev_session(unique_email("owner"));
  const auto first = create(body("First Ltd", "CA"), session);
  const auto second = create(body("Second Ltd", "CA"), session);
  ASSERT_TRUE(has_status(first, 201));
  ASSERT_TRUE(has_status(second, 201));
  EXPECT_STRNE(first.json()["id"].GetString(), second.json()["id"].GetString());
}

}  // namespace
}  // namespace payrail::testing
