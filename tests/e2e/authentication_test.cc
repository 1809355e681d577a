// API-key authentication: missing, invalid and revoked keys, both ways of sending a key,
// revocation seen at once by every API process, last_used_at, suspended organizations.
#include <gtest/gtest.h>

#include <thread>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr std::size_t kSecretLength = 40;  // base62 characters after ck_test_
constexpr auto kLastUsedWait = std::chrono::seconds(15);

class Authentication : public ApiSuite<Authentication> {
 protected:
  static rapidjson::Document create_key(const std::string& api_key,
                                        const std::string& body = R"({"mode":"test"})") {
    const auto response = http().post("/v1/api-keys", body, with_key(api_key));
    EXPECT_TRUE(has_status(response, 201));
    return response.json();
  }

  static std::optional<rapidjson::Document> find_key(const std::string& id) {
    auto json = http().get("/v1/api-keys?limit=100", with_key(organization_->test_key)).json();
    for (auto& item : json["data"].GetArray()) {
      if (item["id"].GetString() != id) continue;
      rapidjson::Document copy;
      copy.CopyFrom(item, copy.GetAllocator());
      return copy;
    }
    return std::nullopt;
  }
};

TEST_F(Authentication, NoKeyIsApiKeyMissing) {
  for (const std::string path : {"/v1/api-keys", "/v1/organization", "/v1/balances", "/v1/payouts",
                                 "/v1/payouts/po_whatever"}) {
    EXPECT_TRUE(is_error(http().get(path), 401, "api_key_missing", "")) << path;
  }
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test"})"), 401, "api_key_missing"));
  EXPECT_TRUE(is_error(http().del("/v1/api-keys/key_whatever"), 401, "api_key_missing"));
}

TEST_F(Authentication, GarbageOrUnknownKeyIsApiKeyInvalid) {
  const auto& real = organization_->test_key;
  const std::vector<std::string> keys{
      "nonsense",
      "ck_test_",
      "ck_test_" + infra::crypto::random_base62(kSecretLength),
      "ck_live_" + infra::crypto::random_base62(kSecretLength),
      // The real key's visible prefix with another secret: found by prefix, refused by hash.
      real.substr(0, 16) + infra::crypto::random_base62(real.size() - 16),
      real + "x",
      real.substr(0, real.size() - 1),
      "ck_prod_" + real.substr(8),
  };
  for (const auto& key : keys) {
    EXPECT_TRUE(is_error(http().get("/v1/api-keys", with_key(key)), 401, "api_key_invalid", ""))
        << key;
  }
}

TEST_F(Authentication, BearerKeyWorksLikeXApiKey) {
  const auto& key = organization_->test_key;
  EXPECT_TRUE(
      has_status(http().get("/v1/organization", {{"Authorization", "Bearer " + key}}), 200));
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(key)), 200));
  // The authentication scheme is case-insensitive (RFC 9110 section 11.1).
  EXPECT_TRUE(
      has_status(http().get("/v1/organization", {{"Authorization", "bearer " + key}}), 200));
  const auto created =
      http().post("/v1/api-keys", R"({"mode":"test"})", {{"Authorization", "Bearer " + key}});
  EXPECT_TRUE(has_status(created, 201));
  const auto unknown = "ck_test_" + infra::crypto::random_base62(kSecretLength);
  EXPECT_TRUE(is_error(http().get("/v1/organization", {{"Authorization", "Bearer " + unknown}}),
                       401, "api_key_invalid"));
}

TEST_F(Authentication, MalformedAuthorizationIs401) {
  const auto& key = organization_->test_key;
  for (const std::string& value : {"Basic " + infra::crypto::base64url_encode("user:pass"),
                                   std::string("Bearer"), key, "Token " + key, "Bearer" + key}) {
    const auto response = http().get("/v1/api-keys", {{"Authorization", value}});
    EXPECT_EQ(response.status, 401) << value;
    EXPECT_TRUE(is_error(response, 401, "api_key_invalid")) << value;
  }
}

TEST_F(Authentication, RevokedKeyIsRejectedAtOnceByEveryApiProcess) {
  // A second API process on the same database and broker, as behind a load balancer.
  auto env = stack_->env();
  const int second_port = free_port();
  env["PAYRAIL_HTTP_PORT"] = std::to_string(second_port);
  ChildProcess second("api-second", bin_path("api/payrail-api"), env);
  second.start();
  ASSERT_TRUE(second.wait_for_log("api.listening", std::chrono::seconds(60))) << second.log();
  const HttpClient second_http("http://127.0.0.1:" + std::to_string(second_port));
  const auto healthy_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (second_http.get("/v1/health").status != 200 &&
         std::chrono::steady_clock::now() < healthy_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  const auto victim = create_key(organization_->test_key);
  const std::string secret = victim["key"].GetString();
  EXPECT_TRUE(has_status(second_http.get("/v1/organization", with_key(secret)), 200));
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(secret)), 200));

  const auto revoked = http().del(std::string("/v1/api-keys/") + victim["id"].GetString(),
                                  with_key(organization_->test_key));
  EXPECT_TRUE(has_status(revoked, 204));
  EXPECT_TRUE(
      is_error(second_http.get("/v1/organization", with_key(secret)), 401, "api_key_invalid"));
  EXPECT_TRUE(is_error(http().get("/v1/organization", with_key(secret)), 401, "api_key_invalid"));
  EXPECT_TRUE(is_error(second_http.get("/v1/api-keys", {{"Authorization", "Bearer " + secret}}),
                       401, "api_key_invalid"));
  second.stop();
}

TEST_F(Authentication, LastUsedAtIsSetSoonAfterUse) {
  const auto created = create_key(organization_->test_key, R"({"mode":"test","name":"rotation"})");
  const std::string id = created["id"].GetString();
  EXPECT_TRUE(created["last_used_at"].IsNull());
  auto listed = find_key(id);
  ASSERT_TRUE(listed);
  EXPECT_TRUE((*listed)["last_used_at"].IsNull());

  EXPECT_TRUE(
      has_status(http().get("/v1/organization", with_key(created["key"].GetString())), 200));
  const auto deadline = std::chrono::steady_clock::now() + kLastUsedWait;
  std::string last_used_at;
  while (std::chrono::steady_clock::now() < deadline) {
    listed = find_key(id);
    if (listed && (*listed)["last_used_at"].IsString()) {
      last_used_at = (*listed)["last_used_at"].GetString();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(last_used_at.empty()) << "last_used_at still null after the wait";
  EXPECT_GE(last_used_at, std::string((*listed)["created_at"].GetString()));
  EXPECT_EQ(last_used_at.size(), std::string("2026-11-21T00:00:00Z").size());
}

TEST_F(Authentication, SuspendedOrClosedOrganizationIsRefusedOnEveryKeyRequest) {
  auto target = stack_->create_organization();
  const auto key = with_key(target.test_key);
  const auto expect_refused = [&](const std::string& status) {
    EXPECT_TRUE(is_error(http().get("/v1/organization", key), 403, "org_suspended")) << status;
    EXPECT_TRUE(is_error(http().get("/v1/api-keys", key), 403, "org_suspended")) << status;
    EXPECT_TRUE(is_error(http().get("/v1/balances", key), 403, "org_suspended")) << status;
    EXPECT_TRUE(
        is_error(http().post("/v1/api-keys", R"({"mode":"test"})", key), 403, "org_suspended"))
        << status;
    EXPECT_TRUE(
        is_error(http().get("/v1/organization", {{"Authorization", "Bearer " + target.test_key}}),
                 403, "org_suspended"))
        << status;
  };
  const auto operator_command = [&](const std::string& command, const std::string& org_id) {
    return stack_->cli({command, "--org", org_id, "--operator", "ops-alice"});
  };
  const auto [suspended, suspend_output] = operator_command("org-suspend", target.id);
  ASSERT_EQ(suspended, 0) << suspend_output;
  expect_refused("suspended");
  const auto [back, back_output] = operator_command("org-reinstate", target.id);
  ASSERT_EQ(back, 0) << back_output;
  const auto organization = http().get("/v1/organization", key);
  EXPECT_TRUE(has_status(organization, 200));
  EXPECT_STREQ(organization.json()["status"].GetString(), "active");
  // Closing is final: no reinstatement.
  const auto [closed, close_output] = operator_command("org-close", target.id);
  ASSERT_EQ(closed, 0) << close_output;
  expect_refused("closed");
  EXPECT_NE(operator_command("org-reinstate", target.id).first, 0);
  expect_refused("closed");
  // Operator commands name an existing organization and a move its lifecycle allows.
  EXPECT_NE(operator_command("org-suspend", "org_doesnotexist").first, 0);
  EXPECT_NE(operator_command("org-reinstate", organization_->id).first, 0);
  // Other organizations are untouched throughout.
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(organization_->test_key)), 200));
}

}  // namespace
}  // namespace payrail::testing
