// POST/GET/DELETE /v1/api-keys: the resource, secrets shown once, scopes, live keys and KYB,
// revocation, the 100-active-keys limit, and who may mint keys with a session.
#include <gtest/gtest.h>

#include <future>
#include <regex>
#include <set>

#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr int kActiveKeysMax = 100;
const std::set<std::string> kAllScopes{
    "payouts:write",      "payouts:read",      "balances:read",
    "webhooks:write",     "webhooks:read",     "organization:read",
    "organization:write", "collections:write", "collections:read"};

std::set<std::string> scopes_of(const rapidjson::Value& key) {
  std::set<std::string> scopes;
  for (const auto& scope : key["scopes"].GetArray()) scopes.insert(scope.GetString());
  return scopes;
}

class ApiKeys : public ApiSuite<ApiKeys> {
 protected:
  static HttpResult create(const std::string& body, const std::string& api_key = "") {
    return http().post("/v1/api-keys", body,
                       with_key(api_key.empty() ? organization_->test_key : api_key));
  }
  static void expect_invalid(const std::string& body, const std::string& param) {
    EXPECT_TRUE(is_error(create(body), 400, "bad_request", param)) << body;
  }
  static rapidjson::Document list(const std::string& api_key) {
    const auto response = http().get("/v1/api-keys?limit=100", with_key(api_key));
    EXPECT_TRUE(has_status(response, 200));
    return response.json();
  }
};

TEST_F(ApiKeys, CreateShowsTheSecretOnce) {
  const auto response = create(
      R"({"mode":"test","name":"payroll server","scopes":["payouts:write","payouts:read"]})");
  ASSERT_TRUE(has_status(response, 201));
  const auto key = response.json();
  const std::string secret = key["key"].GetString();
  const std::string prefix = key["prefix"].GetString();
  EXPECT_TRUE(std::regex_match(secret, std::regex("ck_test_[0-9A-Za-z]{22,}"))) << secret;
  EXPECT_EQ(prefix.rfind("ck_test_", 0), 0u);
  EXPECT_GT(prefix.size(), std::string("ck_test_").size());
  EXPECT_EQ(secret.rfind(prefix, 0), 0u);
  EXPECT_EQ(std::string(key["id"].GetString()).rfind("key_", 0), 0u);
  EXPECT_STREQ(key["object"].GetString(), "api_key");
  EXPECT_STREQ(key["mode"].GetString(), "test");
  EXPECT_STREQ(key["name"].GetString(), "payroll server");
  EXPECT_EQ(scopes_of(key), (std::set<std::string>{"payouts:write", "payouts:read"}));
  EXPECT_FALSE(key["revoked"].GetBool());
  EXPECT_TRUE(key["last_used_at"].IsNull());
  EXPECT_TRUE(key["created_at"].IsString());

  const auto listed = http().get("/v1/api-keys?limit=100", with_key(organization_->test_key));
  EXPECT_EQ(listed.body.find(secret.substr(prefix.size())), std::string::npos);
  bool found = false;
  for (const auto& item : listed.json()["data"].GetArray()) {
    EXPECT_FALSE(item.HasMember("key"));
    for (const char* field : {"id", "object", "prefix", "mode", "name", "scopes", "revoked",
                              "created_at", "last_used_at"}) {
      EXPECT_TRUE(item.HasMember(field)) << field;
    }
    if (std::string(item["id"].GetString()) == key["id"].GetString()) {
      found = true;
      EXPECT_STREQ(item["prefix"].GetString(), prefix.c_str());
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ApiKeys, DefaultScopeSetIsAllNine) {
  const auto response = create(R"({"mode":"test"})");
  ASSERT_TRUE(has_status(response, 201));
  const auto key = response.json();
  EXPECT_EQ(scopes_of(key), kAllScopes);
  EXPECT_TRUE(key["name"].IsNull());
}

TEST_F(ApiKeys, InvalidFieldsAreRejectedWithParam) {
  expect_invalid(R"({"mode":"test","scopes":["payouts:read","payouts:fly"]})", "scopes.1");
  expect_invalid(R"({"mode":"test","scopes":[7]})", "scopes.0");
  expect_invalid(R"({"mode":"test","scopes":["PAYOUTS:READ"]})", "scopes.0");
  expect_invalid(R"({"mode":"test","scopes":[]})", "scopes");
  expect_invalid(R"({"mode":"test","scopes":"payouts:read"})", "scopes");
  expect_invalid(R"({"mode":"sandbox"})", "mode");
  expect_invalid(R"({"mode":"TEST"})", "mode");
  expect_invalid(R"({"name":"no mode"})", "mode");
  expect_invalid("", "mode");
  expect_invalid(R"({"mode":"test","name":")" + std::string(101, 'n') + R"("})", "name");
  expect_invalid(R"({"mode":"test","name":7})", "name");
}

TEST_F(ApiKeys, LiveKeysNeedAVerifiedOrganization) {
  const auto owner = stack_->create_organization();
  const auto session = with_session(owner.session, {{"Payrail-Organization", owner.id}});
  EXPECT_TRUE(
      is_error(http().post("/v1/api-keys", R"({"mode":"live"})", session), 403, "kyb_required"));
  // The test key of the same organization may not mint live keys either.
  EXPECT_TRUE(is_error(create(R"({"mode":"live"})", owner.test_key), 400, "bad_request", "mode"));

  stack_->verify_business(owner);
  const auto live = http().post("/v1/api-keys", R"({"mode":"live","name":"prod"})", session);
  ASSERT_TRUE(has_status(live, 201));
  const auto key = live.json();
  EXPECT_EQ(std::string(key["key"].GetString()).rfind("ck_live_", 0), 0u);
  EXPECT_EQ(std::string(key["prefix"].GetString()).rfind("ck_live_", 0), 0u);
  EXPECT_STREQ(key["mode"].GetString(), "live");
  const std::string live_secret = key["key"].GetString();

  // Each key mints only keys of its own mode.
  EXPECT_TRUE(is_error(create(R"({"mode":"live"})", owner.test_key), 400, "bad_request", "mode"));
  EXPECT_TRUE(is_error(create(R"({"mode":"test"})", live_secret), 400, "bad_request", "mode"));
  EXPECT_TRUE(has_status(create(R"({"mode":"live"})", live_secret), 201));
  // The session also mints test keys.
  EXPECT_TRUE(has_status(http().post("/v1/api-keys", R"({"mode":"test"})", session), 201));
}

TEST_F(ApiKeys, SessionMustNameAnOrganizationItOwns) {
  const auto owner = stack_->create_organization();
  const auto other = stack_->create_organization();
  const std::string body = R"({"mode":"test"})";
  // Not the owner: another member's session, or the owner of another organization.
  const auto stranger = stack_->dev_session(unique_email("stranger"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body,
                                   with_session(stranger, {{"Payrail-Organization", owner.id}})),
                       404, "resource_missing"));
  EXPECT_TRUE(
      is_error(http().post("/v1/api-keys", body,
                           with_session(other.session, {{"Payrail-Organization", owner.id}})),
               404, "resource_missing"));
  EXPECT_TRUE(is_error(
      http().post("/v1/api-keys", body,
                  with_session(owner.session, {{"Payrail-Organization", "org_doesnotexist"}})),
      404, "resource_missing"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, with_session(owner.session)), 400,
                       "bad_request", "Payrail-Organization"));
  EXPECT_TRUE(
      has_status(http().post("/v1/api-keys", body,
                             with_session(owner.session, {{"Payrail-Organization", owner.id}})),
                 201));
}

TEST_F(ApiKeys, RevokeIsImmediateAndOnlyOnce) {
  const auto created = create(R"({"mode":"test","name":"to revoke"})");
  ASSERT_TRUE(has_status(created, 201));
  const auto key = created.json();
  const std::string path = std::string("/v1/api-keys/") + key["id"].GetString();
  const std::string secret = key["key"].GetString();
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(secret)), 200));

  const auto revoked = http().del(path, with_key(organization_->test_key));
  EXPECT_TRUE(has_status(revoked, 204));
  EXPECT_TRUE(revoked.body.empty());
  EXPECT_TRUE(is_error(http().get("/v1/organization", with_key(secret)), 401, "api_key_invalid"));
  EXPECT_TRUE(is_error(http().del(path, with_key(organization_->test_key)), 404, "not_found"));
  EXPECT_TRUE(is_error(
      http().del("/v1/api-keys/key_" + std::string(24, 'Z'), with_key(organization_->test_key)),
      404, "not_found"));
  EXPECT_TRUE(is_error(http().del("/v1/api-keys/not-a-key", with_key(organization_->test_key)), 404,
                       "not_found"));

  // Still listed, as revoked.
  bool found = false;
  for (const auto& item : list(organization_->test_key)["data"].GetArray()) {
    if (std::string(item["id"].GetString()) != key["id"].GetString()) continue;
    found = true;
    EXPECT_TRUE(item["revoked"].GetBool());
  }
  EXPECT_TRUE(found);
}

TEST_F(ApiKeys, AKeyMayRevokeItself) {
  const auto created = create(R"({"mode":"test"})");
  ASSERT_TRUE(has_status(created, 201));
  const auto key = created.json();
  const std::string secret = key["key"].GetString();
  EXPECT_TRUE(has_status(
      http().del(std::string("/v1/api-keys/") + key["id"].GetString(), with_key(secret)), 204));
  EXPECT_TRUE(is_error(http().get("/v1/api-keys", with_key(secret)), 401, "api_key_invalid"));
}

TEST_F(ApiKeys, HundredActiveKeysPerOrganizationAndMode) {
  const auto target = stack_->create_organization();  // already has one active key
  constexpr int kRacing = 10;
  for (int i = 1; i < kActiveKeysMax - kRacing / 2; ++i) {
    ASSERT_TRUE(has_status(create(R"({"mode":"test"})", target.test_key), 201)) << "key " << i + 1;
  }
  // Ten creates race for the last five places: exactly five win.
  std::vector<std::future<HttpResult>> racing;
  for (int i = 0; i < kRacing; ++i) {
    racing.push_back(std::async(std::launch::async,
                                [&] { return create(R"({"mode":"test"})", target.test_key); }));
  }
  int won = 0;
  std::string last_id;
  for (auto& future : racing) {
    const auto response = future.get();
    if (response.status == 201) {
      ++won;
      last_id = response.json()["id"].GetString();
    } else {
      EXPECT_TRUE(is_error(response, 409, "resource_limit_reached"));
    }
  }
  EXPECT_EQ(won, kRacing / 2);
  EXPECT_TRUE(
      is_error(create(R"({"mode":"test"})", target.test_key), 409, "resource_limit_reached"));
  // Revoked keys do not count.
  EXPECT_TRUE(has_status(http().del("/v1/api-keys/" + last_id, with_key(target.test_key)), 204));
  EXPECT_TRUE(has_status(create(R"({"mode":"test"})", target.test_key), 201));
  EXPECT_TRUE(
      is_error(create(R"({"mode":"test"})", target.test_key), 409, "resource_limit_reached"));
  // The limit is per mode: a live key can still be minted once verified.
  stack_->verify_business(target);
  EXPECT_TRUE(
      has_status(http().post("/v1/api-keys", R"({"mode":"live"})",
                             with_session(target.session, {{"Payrail-Organization", target.id}})),
                 201));
}

TEST_F(ApiKeys, ConcurrentRevocationsSucceedOnce) {
  const auto created = create(R"({"mode":"test"})");
  ASSERT_TRUE(has_status(created, 201));
  const std::string path = std::string("/v1/api-keys/") + created.json()["id"].GetString();
  std::vector<std::future<HttpResult>> racing;
  for (int i = 0; i < 6; ++i) {
    racing.push_back(std::async(
        std::launch::async, [&] { return http().del(path, with_key(organization_->test_key)); }));
  }
  int revoked = 0;
  for (auto& future : racing) {
    const auto response = future.get();
    if (response.status == 204) {
      ++revoked;
    } else {
      EXPECT_TRUE(is_error(response, 404, "not_found"));
    }
  }
  EXPECT_EQ(revoked, 1);
}

}  // namespace
}  // namespace payrail::testing
