// Live fiat payouts: a verified business, a payout partner, the corridor enabled for the
// organization by an operator and a rate source are all required before anything is held; a retry
// with a used key still gets its original answer; the test-mode name triggers mean nothing; test
// keys never see live fiat payouts, nor live keys test ones.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/money/ledger.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class LiveFiatPayouts : public ::testing::Test {
 protected:
  // The API runs with the staging partner ("simulated") and rate source ("reference"); tests
  // that need either missing restart the API without it and restore it after.
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {"screening", "execution", "settlement"},
                            .env = {{"PAYRAIL_PAYOUT_PARTNER", "simulated"},
                                    {"PAYRAIL_RATE_SOURCE", "reference"},
                                    {"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"}}});
    org_ = new TestOrganization(stack_->create_organization());
    stack_->verify_business(*org_);
    const auto created = stack_->http().post(
        "/v1/api-keys", R"({"mode":"live"})",
        {{"Authorization", "Bearer " + org_->session}, {"Payrail-Organization", org_->id}});
    if (created.status != 201) throw std::runtime_error("live key: " + created.body);
    live_key_ = new std::string(created.json()["key"].GetString());
    fund_live_usdc("1000");
  }
  static void TearDownTestSuite() {
    delete live_key_;
    delete org_;
    delete stack_;
  }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  // Live balances are funded by collections (tests/e2e/collections_test.cc proves that path); this
  // file funds one through the ledger's own balanced movement, as the sandbox seed does in test
  // mode, so its tests need no collection provider.
  static void fund_live_usdc(const std::string& amount) {
    infra::pg::Pool pool({.url = stack_->database().url(), .max_connections = 1});
    const auto funded = pool.transact([&](pqxx::work& tx) -> model::Status {
      infra::store::ledger::apply(tx, org_->id, model::Mode::live, "USDC",
                                  infra::store::ledger::Movement::sandbox_funding, std::nullopt,
                                  amount);
      return model::ok_status();
    });
    if (!funded.ok()) throw std::runtime_error(funded.error().message);
  }

  HttpResult create_live(const std::string& key, const std::string& body) {
    return create_fiat_payout(stack_->http(), *live_key_, key, body);
  }
  std::string live_usdc() { return balance_of(stack_->database(), org_->id, "live", "USDC"); }
  std::string live_rows() {
    return stack_->database().scalar("SELECT count(*) FROM fiat_payouts WHERE org_id = '" +
                                     org_->id + "' AND mode = 'live'");
  }
  void restart_api_with(const std::string& name, const std::string& value) {
    stack_->process("api").set_env(name, value);
    stack_->start("api");
  }
  std::pair<int, std::string> corridor(const std::string& action, const std::string& country) {
    return stack_->cli(
        {"corridor-" + action, "--org", org_->id, "--country", country, "--operator", "ops-test"});
  }

  static TestStack* stack_;
  static TestOrganization* org_;
  static std::string* live_key_;
};
TestStack* LiveFiatPayouts::stack_ = nullptr;
TestOrganization* LiveFiatPayouts::org_ = nullptr;
std::string* LiveFiatPayouts::live_key_ = nullptr;

TEST_F(LiveFiatPayouts, CorridorNotEnabledIsProviderUnavailableAndHoldsNothing) {
  const auto body = fiat_payout_body("100.00", mexico_case(), "Maria Lopez");
  const auto refused = create_live("a", body);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.error_code(), "provider_unavailable");
  EXPECT_EQ(live_usdc(), "1000/0");
  EXPECT_EQ(live_rows(), "0");
  // Enabling another country's corridor does not enable this one; test mode needs none.
  ASSERT_EQ(corridor("enable", "DE").first, 0);
  EXPECT_EQ(create_live("b", body).error_code(), "provider_unavailable");
  EXPECT_EQ(create_fiat_payout(stack_->http(), org_->test_key, "a", body).status, 201);
  ASSERT_EQ(corridor("disable", "DE").first, 0);
}

TEST_F(LiveFiatPayouts, EnabledCorridorPaysOutIgnoringTheTestTriggers) {
  ASSERT_EQ(corridor("enable", "MX").first, 0);
  // 100 MXN at 18.45: 5.420055 USDC each. In live mode the suffixes are ordinary names.
  const auto fail_named = create_live("c", fiat_payout_body("100.00", mexico_case(), "Ana FAIL"));
  ASSERT_EQ(fail_named.status, 201) << fail_named.body;
  const auto blocked_named =
      create_live("d", fiat_payout_body("100.00", mexico_case(), "Ana BLOCKED"));
  ASSERT_EQ(blocked_named.status, 201) << blocked_named.body;
  for (const auto& response : {fail_named, blocked_named}) {
    const std::string id = response.json()["id"].GetString();
    EXPECT_STREQ(response.json()["mode"].GetString(), "live");
    EXPECT_EQ(wait_for_fiat_status(stack_->http(), *live_key_, id, {"completed", "failed"}),
              "completed");
  }
  EXPECT_EQ(live_usdc(), "989.15989/0");
  ASSERT_EQ(corridor("disable", "MX").first, 0);
  EXPECT_EQ(create_live("e", fiat_payout_body("100.00", mexico_case(), "Ana Souza")).error_code(),
            "provider_unavailable");
}

TEST_F(LiveFiatPayouts, ShortLiveBalanceIsRefusedWith402) {
  ASSERT_EQ(corridor("enable", "GB").first, 0);
  const auto before = live_usdc();
  // 1,000 GBP needs 1,315 USDC.
  const auto response =
      create_live("f", fiat_payout_body("1000.00", account_cases()[8], "Oliver Smith"));
  EXPECT_EQ(response.status, 402) << response.body;
  EXPECT_EQ(response.error_code(), "insufficient_balance");
  EXPECT_EQ(live_usdc(), before);
  ASSERT_EQ(corridor("disable", "GB").first, 0);
}

TEST_F(LiveFiatPayouts, AUsedKeyIsAnsweredEvenAfterLiveBecameUnavailable) {
  ASSERT_EQ(corridor("enable", "DE").first, 0);
  const auto body = fiat_payout_body("10.00", account_cases()[5], "Jonas Weber");
  const auto first = create_live("g", body);
  ASSERT_EQ(first.status, 201) << first.body;
  restart_api_with("PAYRAIL_PAYOUT_PARTNER", "");
  const auto replay = create_live("g", body);
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  EXPECT_EQ(replay.body, first.body);
  const auto no_partner = create_live("h", body);
  EXPECT_EQ(no_partner.status, 503);
  EXPECT_EQ(no_partner.error_code(), "provider_unavailable");
  restart_api_with("PAYRAIL_PAYOUT_PARTNER", "simulated");
  restart_api_with("PAYRAIL_RATE_SOURCE", "");
  const auto no_rates = create_live("i", body);
  EXPECT_EQ(no_rates.status, 503);
  EXPECT_EQ(no_rates.error_code(), "provider_unavailable");
  restart_api_with("PAYRAIL_RATE_SOURCE", "reference");
  EXPECT_EQ(wait_for_fiat_status(stack_->http(), *live_key_, first.json()["id"].GetString(),
                                 {"completed"}),
            "completed");
  ASSERT_EQ(corridor("disable", "DE").first, 0);
}

// A live key exists only for a verified business and the lifecycle never takes verification
// back, so the state is written directly: the gate reads kyb_status on every request.
TEST_F(LiveFiatPayouts, UnverifiedBusinessGetsKybRequired) {
  ASSERT_EQ(corridor("enable", "MX").first, 0);
  stack_->database().scalar("UPDATE organizations SET kyb_status = 'pending' WHERE id = '" +
                            org_->id + "'");
  const auto response = create_live("j", fiat_payout_body("10.00", mexico_case(), "Ana Souza"));
  EXPECT_EQ(response.status, 403);
  EXPECT_EQ(response.error_code(), "kyb_required");
  stack_->database().scalar("UPDATE organizations SET kyb_status = 'verified' WHERE id = '" +
                            org_->id + "'");
  ASSERT_EQ(corridor("disable", "MX").first, 0);
}

TEST_F(LiveFiatPayouts, TestAndLiveFiatPayoutsNeverMeet) {
  ASSERT_EQ(corridor("enable", "MX").first, 0);
  const auto body = fiat_payout_body("10.00", mexico_case(), "Ana Souza");
  const auto live = create_live("k", body);
  ASSERT_EQ(live.status, 201) << live.body;
  const auto test = create_fiat_payout(stack_->http(), org_->test_key, "k", body);
  ASSERT_EQ(test.status, 201) << test.body;
  const std::string live_id = live.json()["id"].GetString();
  const std::string test_id = test.json()["id"].GetString();
  const auto& http = stack_->http();
  EXPECT_EQ(http.get("/v1/fiat-payouts/" + live_id, with_key(org_->test_key)).status, 404);
  EXPECT_EQ(http.get("/v1/fiat-payouts/" + test_id, with_key(*live_key_)).status, 404);
  EXPECT_EQ(
      http.post("/v1/fiat-payouts/" + test_id + "/cancel", "", with_key(*live_key_)).error_code(),
      "resource_missing");
  for (const auto& [key, mode] : {std::pair{*live_key_, "live"}, {org_->test_key, "test"}}) {
    const auto page = http.get("/v1/fiat-payouts?limit=100", with_key(key)).json();
    ASSERT_GT(page["data"].Size(), 0u);
    for (const auto& item : page["data"].GetArray()) EXPECT_STREQ(item["mode"].GetString(), mode);
  }
  for (const auto& [key, id] : {std::pair{*live_key_, live_id}, {org_->test_key, test_id}}) {
    EXPECT_EQ(wait_for_fiat_status(http, key, id, {"completed"}), "completed");
  }
  ASSERT_EQ(corridor("disable", "MX").first, 0);
}

}  // namespace
}  // namespace payrail::testing
