// Live mode: a verified business, a chain adapter and loaded sanctions lists are all required
// before anything is held; trigger suffixes mean nothing; test keys never see live data.
#include <gtest/gtest.h>

#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class LivePayouts : public ::testing::Test {
 protected:
  // The API is configured with the staging "simulated" chain adapter; tests that need no
  // adapter restart the API without it.
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_CHAIN_ADAPTER", "simulated"}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  void SetUp() override {
    org_ = stack_->create_organization();
    stack_->verify_business(org_);
    const auto created = stack_->http().post(
        "/v1/api-keys", R"({"mode":"live"})",
        {{"Authorization", "Bearer " + org_.session}, {"Payrail-Organization", org_.id}});
    ASSERT_EQ(created.status, 201) << created.body;
    live_key_ = created.json()["key"].GetString();
  }
  HttpResult create_live(const std::string& key, const std::string& body) {
    return create_payout(stack_->http(), live_key_, key, body);
  }

  static TestStack* stack_;
  TestOrganization org_;
  std::string live_key_;
};
TestStack* LivePayouts::stack_ = nullptr;

TEST_F(LivePayouts, LiveBalancesStartEmptySoNothingCanBeHeld) {
  const auto response = create_live("a", payout_body("1", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(response.status, 402) << response.body;
  EXPECT_EQ(response.error_code(), "insufficient_balance");
  EXPECT_EQ(balance_of(stack_->database(), org_.id, "live", "USDC"), "0/0");
}

TEST_F(LivePayouts, TriggerSuffixesAreOrdinaryInvalidAddressesInLive) {
  for (const auto& address : {blocked_trigger_address(), fail_trigger_address()}) {
    const auto response = create_live(address, payout_body("1", "USDC", "polygon", address));
    EXPECT_EQ(response.status, 422);
    EXPECT_EQ(response.error_param(), "destination.address");
  }
}

// A live key exists only for a verified business and the lifecycle never takes verification
// back, so the state is written directly: the gate reads kyb_status on every request.
TEST_F(LivePayouts, UnverifiedBusinessGetsKybRequired) {
  stack_->database().scalar("UPDATE organizations SET kyb_status = 'pending' WHERE id = '" +
                            org_.id + "'");
  const auto response = create_live("b", payout_body("1", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(response.status, 403);
  EXPECT_EQ(response.error_code(), "kyb_required");
}

TEST_F(LivePayouts, WithoutSanctionsListsNothingMoves) {
  auto& screening = stack_->process("screening");
  stack_->stop("screening");
  // Heartbeats from the stopped worker must age out before the API reports unavailability.
  stack_->database().scalar(
      "UPDATE screening_workers SET heartbeat_at = now() - interval '1 hour'");
  screening.set_env("PAYRAIL_SANCTIONS_DIR", "/nonexistent-sanctions");
  stack_->start("screening");
  const auto response = create_live("c", payout_body("1", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(response.status, 503) << response.body;
  EXPECT_EQ(response.error_code(), "sanctions_unavailable");
  screening.set_env("PAYRAIL_SANCTIONS_DIR", "");
  stack_->start("screening");
}

TEST_F(LivePayouts, WithoutChainAdapterLiveIsProviderUnavailable) {
  auto& api = stack_->process("api");
  api.set_env("PAYRAIL_CHAIN_ADAPTER", "");
  stack_->start("api");
  const auto response = create_live("d", payout_body("1", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.error_code(), "provider_unavailable");
  // Test mode needs no adapter.
  const auto test_mode = create_payout(stack_->http(), org_.test_key, "d",
                                       payout_body("1", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(test_mode.status, 201);
  api.set_env("PAYRAIL_CHAIN_ADAPTER", "simulated");
  stack_->start("api");
}

TEST_F(LivePayouts, TestAndLiveDataNeverMeet) {
  // A live payout row, inserted directly (this file's live balances are not funded).
  stack_->database().scalar(
      "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
      "amount_usd) VALUES ('po_liveonly" +
      org_.id.substr(4, 8) + "', '" + org_.id +
      "', 'live', 'pending', 1, 'USDC', 'polygon', '0xabc', 1)");
  const auto id = "po_liveonly" + org_.id.substr(4, 8);
  EXPECT_EQ(stack_->http().get("/v1/payouts/" + id, with_key(org_.test_key)).status, 404);
  EXPECT_EQ(stack_->http().get("/v1/payouts", with_key(org_.test_key)).json()["data"].Size(), 0u);
  EXPECT_EQ(stack_->http().get("/v1/payouts/" + id, with_key(live_key_)).status, 200);
  const auto cancel =
      stack_->http().post("/v1/payouts/" + id + "/cancel", "", with_key(org_.test_key));
  EXPECT_EQ(cancel.error_code(), "resource_missing");
}

}  // namespace
}  // namespace payrail::testing
