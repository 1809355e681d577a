// Isolation by organization and by mode: an organization never sees or changes another's keys,
// organization or payouts, and test keys never see live data (nor live keys test data).
#include <gtest/gtest.h>

#include <set>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr const char* kPayoutBody =
    R"({"amount":"1.00","currency":"USDC","destination":{"network":"ethereum",)"
    R"("address":"0x52908400098527886e0f7030069857d2e4169ee7"}})";

class Isolation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // No screening worker runs: answer payout creates at once (status pending).
    stack_ = new TestStack({.workers = {}, .env = {{"PAYRAIL_SCREENING_WAIT_MS", "0"}}});
    alpha_ = new TestOrganization(stack_->create_organization());
    beta_ = new TestOrganization(stack_->create_organization());
  }
  static void TearDownTestSuite() {
    delete beta_;
    delete alpha_;
    delete stack_;
  }
  static const HttpClient& http() { return stack_->http(); }

  static std::set<std::string> listed_ids(const std::string& path, const std::string& api_key,
                                          const std::string& expected_mode) {
    const auto response = http().get(path + "?limit=100", with_key(api_key));
    EXPECT_TRUE(has_status(response, 200));
    std::set<std::string> ids;
    for (const auto& item : response.json()["data"].GetArray()) {
      ids.insert(item["id"].GetString());
      EXPECT_EQ(std::string(item["mode"].GetString()), expected_mode) << item["id"].GetString();
    }
    return ids;
  }
  static std::string key_id_of(const TestOrganization& organization) {
    return stack_->database().scalar("SELECT id FROM api_keys WHERE org_id = '" + organization.id +
                                     "' ORDER BY created_at LIMIT 1");
  }
  static std::string live_key_for(const TestOrganization& organization) {
    stack_->verify_business(organization);
    const auto response = http().post(
        "/v1/api-keys", R"({"mode":"live"})",
        with_session(organization.session, {{"Payrail-Organization", organization.id}}));
    EXPECT_TRUE(has_status(response, 201));
    return response.json()["key"].GetString();
  }
  // Live payouts need a chain adapter and sanctions data this stack does not have, so one is
  // written directly, as the API would have (cancelled, so no worker would touch it).
  static std::string insert_live_payout(const TestOrganization& organization) {
    const auto id = "po_" + infra::crypto::random_base62(24);
    stack_->database().scalar(
        "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
        "amount_usd) VALUES ('" +
        id + "', '" + organization.id +
        "', 'live', 'cancelled', 5, 'USDC', 'ethereum', "
        "'0x52908400098527886e0f7030069857d2e4169ee7', 5)");
    return id;
  }

  static TestStack* stack_;
  static TestOrganization* alpha_;
  static TestOrganization* beta_;
};
TestStack* Isolation::stack_ = nullptr;
TestOrganization* Isolation::alpha_ = nullptr;
TestOrganization* Isolation::beta_ = nullptr;

TEST_F(Isolation, OrganizationNeverListsAnothersKeys) {
  const auto alpha_ids = listed_ids("/v1/api-keys", alpha_->test_key, "test");
  const auto beta_ids = listed_ids("/v1/api-keys", beta_->test_key, "test");
  ASSERT_FALSE(alpha_ids.empty());
  ASSERT_FALSE(beta_ids.empty());
  for (const auto& id : alpha_ids) EXPECT_FALSE(beta_ids.contains(id)) << id;
  EXPECT_TRUE(alpha_ids.contains(key_id_of(*alpha_)));
  EXPECT_TRUE(is_error(
      http().get("/v1/api-keys?starting_after=" + key_id_of(*alpha_), with_key(beta_->test_key)),
      400, "bad_request", "starting_after"));
}

TEST_F(Isolation, OrganizationCannotRevokeAnothersKey) {
  const auto target = key_id_of(*alpha_);
  EXPECT_TRUE(
      is_error(http().del("/v1/api-keys/" + target, with_key(beta_->test_key)), 404, "not_found"));
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(alpha_->test_key)), 200));
  EXPECT_EQ(stack_->database().scalar("SELECT revoked_at IS NULL FROM api_keys WHERE id = '" +
                                      target + "'"),
            "t");
}

TEST_F(Isolation, OrganizationReadsOnlyItself) {
  const auto alpha = http().get("/v1/organization", with_key(alpha_->test_key));
  const auto beta = http().get("/v1/organization", with_key(beta_->test_key));
  ASSERT_TRUE(has_status(alpha, 200));
  ASSERT_TRUE(has_status(beta, 200));
  EXPECT_EQ(std::string(alpha.json()["id"].GetString()), alpha_->id);
  EXPECT_EQ(std::string(beta.json()["id"].GetString()), beta_->id);
  // A key cannot be pointed at another organization by header.
  const auto steered = http().get(
      "/v1/organization", with_key(beta_->test_key, {{"Payrail-Organization", alpha_->id}}));
  EXPECT_EQ(std::string(steered.json()["id"].GetString()), beta_->id);
}

TEST_F(Isolation, OrganizationNeverSeesAnothersPayouts) {
  const auto created = http().post("/v1/payouts", kPayoutBody,
                                   with_key(alpha_->test_key, {{"Idempotency-Key", "iso-1"}}));
  ASSERT_TRUE(created.status == 201 || created.status == 202) << created.body;
  const std::string id = created.json()["id"].GetString();
  EXPECT_TRUE(has_status(http().get("/v1/payouts/" + id, with_key(alpha_->test_key)), 200));
  EXPECT_TRUE(is_error(http().get("/v1/payouts/" + id, with_key(beta_->test_key)), 404,
                       "resource_missing"));
  EXPECT_TRUE(is_error(http().post("/v1/payouts/" + id + "/cancel", "", with_key(beta_->test_key)),
                       404, "resource_missing"));
  EXPECT_FALSE(listed_ids("/v1/payouts", beta_->test_key, "test").contains(id));
  EXPECT_TRUE(listed_ids("/v1/payouts", alpha_->test_key, "test").contains(id));
  // The same idempotency key in another organization is another operation.
  const auto other = http().post("/v1/payouts", kPayoutBody,
                                 with_key(beta_->test_key, {{"Idempotency-Key", "iso-1"}}));
  ASSERT_TRUE(other.status == 201 || other.status == 202) << other.body;
  EXPECT_NE(std::string(other.json()["id"].GetString()), id);
}

TEST_F(Isolation, TestAndLiveDataNeverMeet) {
  auto organization = stack_->create_organization();
  const auto live_key = live_key_for(organization);
  const auto test_ids = listed_ids("/v1/api-keys", organization.test_key, "test");
  const auto live_ids = listed_ids("/v1/api-keys", live_key, "live");
  EXPECT_EQ(live_ids.size(), 1u);
  for (const auto& id : live_ids) {
    EXPECT_FALSE(test_ids.contains(id));
    EXPECT_TRUE(is_error(http().del("/v1/api-keys/" + id, with_key(organization.test_key)), 404,
                         "not_found"));
    EXPECT_TRUE(
        is_error(http().get("/v1/api-keys?starting_after=" + id, with_key(organization.test_key)),
                 400, "bad_request", "starting_after"));
  }
  for (const auto& id : test_ids) {
    EXPECT_TRUE(is_error(http().del("/v1/api-keys/" + id, with_key(live_key)), 404, "not_found"));
  }

  const auto live_payout = insert_live_payout(organization);
  const auto test_payout = http().post(
      "/v1/payouts", kPayoutBody, with_key(organization.test_key, {{"Idempotency-Key", "mode-1"}}));
  ASSERT_TRUE(test_payout.status == 201 || test_payout.status == 202) << test_payout.body;
  const std::string test_payout_id = test_payout.json()["id"].GetString();

  EXPECT_EQ(listed_ids("/v1/payouts", live_key, "live"), std::set<std::string>{live_payout});
  EXPECT_EQ(listed_ids("/v1/payouts", organization.test_key, "test"),
            std::set<std::string>{test_payout_id});
  EXPECT_TRUE(is_error(http().get("/v1/payouts/" + live_payout, with_key(organization.test_key)),
                       404, "resource_missing"));
  EXPECT_TRUE(is_error(http().get("/v1/payouts/" + test_payout_id, with_key(live_key)), 404,
                       "resource_missing"));
  EXPECT_TRUE(has_status(http().get("/v1/payouts/" + live_payout, with_key(live_key)), 200));

  // Balances: the sandbox funds exist only in test mode.
  const auto test_balances = http().get("/v1/balances", with_key(organization.test_key)).json();
  const auto live_balances = http().get("/v1/balances", with_key(live_key)).json();
  for (const auto& balance : test_balances["data"].GetArray()) {
    EXPECT_STREQ(balance["mode"].GetString(), "test");
  }
  for (const auto& balance : live_balances["data"].GetArray()) {
    EXPECT_STREQ(balance["mode"].GetString(), "live");
    EXPECT_EQ(normalized_decimal(balance["available"].GetString()), "0");
  }
  EXPECT_NE(normalized_decimal(test_balances["data"][0]["available"].GetString()), "0");
}

}  // namespace
}  // namespace payrail::testing
