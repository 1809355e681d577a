// Stablecoin payouts end to end over HTTP with every worker role running: each test-mode
// outcome, approvals, cancels in every cancellable state, validation, idempotency and limits.
// After each test the ledger must equal the balances.
#include <gtest/gtest.h>

#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class Payouts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack(); }
  static void TearDownTestSuite() { delete stack_; }
  void SetUp() override { org_ = stack_->create_organization(); }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  HttpResult create(const std::string& body, const std::string& key = "") {
    return create_payout(stack_->http(), org_.test_key, key.empty() ? next_key() : key, body);
  }
  std::string next_key() { return "key-" + std::to_string(counter_++); }
  std::string wait(const std::string& id, const std::set<std::string>& statuses) {
    return wait_for_status(stack_->http(), org_.test_key, id, statuses);
  }
  std::string usdc() { return balance_of(stack_->database(), org_.id, "test", "USDC"); }
  // The payout's transition log ("from>to:trigger", in order) and its events' sequence numbers.
  std::string transitions_of(const std::string& id) {
    return stack_->database().scalar(
        "SELECT string_agg(coalesce(from_status, '-') || '>' || to_status || ':' || trigger, ',' "
        "ORDER BY id) FROM resource_transitions WHERE resource_type = 'payout' AND resource_id = '" +
        id + "'");
  }
  std::string event_sequences_of(const std::string& id) {
    return stack_->database().scalar(
        "SELECT string_agg(sequence::text, ',' ORDER BY sequence) || '/' || (SELECT "
        "event_sequence FROM payouts WHERE id = '" +
        id + "') FROM events WHERE resource_id = '" + id + "'");
  }
  HttpResult get(const std::string& id) {
    return stack_->http().get("/v1/payouts/" + id, with_key(org_.test_key));
  }
  HttpResult post(const std::string& path, const Headers& headers) {
    return stack_->http().post(path, "", headers);
  }

  static TestStack* stack_;
  TestOrganization org_;
  int counter_ = 0;
};
TestStack* Payouts::stack_ = nullptr;

TEST_F(Payouts, CompletesWithSimulatedHashAndSettlesTheHold) {
  const auto response = create(payout_body("10.50", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(response.status, 201) << response.body;
  const auto id = std::string(response.json()["id"].GetString());
  EXPECT_EQ(wait(id, {"completed"}), "completed");
  auto payout = get(id).json();
  EXPECT_EQ(std::string(payout["tx_hash"].GetString()).rfind("0xSIMULATED", 0), 0u);
  EXPECT_STREQ(payout["screening_status"].GetString(), "clear");
  EXPECT_STREQ(payout["amount"].GetString(), "10.50");
  EXPECT_EQ(usdc(), "999989.5/0");
  for (const auto* type : {"payout.created", "payout.processing", "payout.completed"}) {
    EXPECT_EQ(event_count(stack_->database(), id, type), 1) << type;
  }
  // Screening writes its start and its decision at once; both are logged, in order.
  EXPECT_EQ(transitions_of(id),
            "->pending:create,pending>screening:start_screening,screening>approved:screening_clear,"
            "approved>processing:execute,processing>completed:confirm");
  EXPECT_EQ(event_sequences_of(id), "1,2,3/3");
}

TEST_F(Payouts, FailedBroadcastRefundsWithReason) {
  const auto response = create(payout_body("25", "USDT", "ethereum", fail_trigger_address()));
  ASSERT_EQ(response.status, 201) << response.body;
  const auto id = std::string(response.json()["id"].GetString());
  EXPECT_EQ(wait(id, {"failed"}), "failed");
  auto payout = get(id).json();
  EXPECT_TRUE(payout.HasMember("failure_reason"));
  EXPECT_TRUE(payout["tx_hash"].IsNull());
  EXPECT_EQ(balance_of(stack_->database(), org_.id, "test", "USDT"), "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.failed"), 1);
  EXPECT_EQ(event_count(stack_->database(), id, "payout.completed"), 0);
}

void expect_blocked(const HttpResult& response, const std::string& reason) {
  ASSERT_EQ(response.status, 403) << response.body;
  EXPECT_EQ(response.error_code(), "screening_blocked");
  auto error = response.json();
  ASSERT_TRUE(error["error"].HasMember("payout_id"));
  EXPECT_EQ(std::string(error["error"]["payout_id"].GetString()).rfind("po_", 0), 0u);
  (void)reason;
}

TEST_F(Payouts, RealOfacListedEthereumAddressIsBlockedAndNothingMoves) {
  const auto response = create(payout_body("1", "ETH", "ethereum", listed_address("ETH")));
  expect_blocked(response, "ofac_sdn");
  const std::string id = response.json()["error"]["payout_id"].GetString();
  auto payout = get(id).json();
  EXPECT_STREQ(payout["status"].GetString(), "blocked");
  EXPECT_STREQ(payout["screening_status"].GetString(), "blocked");
  ASSERT_EQ(payout["screening_result"]["reasons"].Size(), 1u);
  EXPECT_STREQ(payout["screening_result"]["reasons"][0].GetString(), "ofac_sdn");
  EXPECT_EQ(balance_of(stack_->database(), org_.id, "test", "ETH"), "1000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.blocked"), 1);
  EXPECT_EQ(event_count(stack_->database(), id, "payout.processing"), 0);
  EXPECT_EQ(transitions_of(id),
            "->pending:create,pending>screening:start_screening,"
            "screening>blocked:screening_flagged");
  EXPECT_EQ(event_sequences_of(id), "1,2/2");
  EXPECT_NE(stack_->database().scalar("SELECT screening_list_version FROM payouts WHERE id = '" +
                                      id + "'"),
            "");
}

TEST_F(Payouts, RealOfacListedTronAddressIsBlocked) {
  expect_blocked(create(payout_body("5", "USDT", "tron", listed_address("TRX"))), "ofac_sdn");
}

TEST_F(Payouts, InternalBlacklistAndTestSuffixBlock) {
  const auto address = random_evm_address();
  const auto [code, output] =
      stack_->cli({"blacklist-add", "--address", address, "--reason", "test"});
  ASSERT_EQ(code, 0) << output;
  auto response = create(payout_body("1", "USDC", "base", address));
  expect_blocked(response, "internal_blacklist");
  auto payout = get(response.json()["error"]["payout_id"].GetString()).json();
  EXPECT_STREQ(payout["screening_result"]["reasons"][0].GetString(), "internal_blacklist");
  expect_blocked(create(payout_body("1", "USDC", "base", blocked_trigger_address())),
                 "internal_blacklist");
  // A blocked payout stays blocked on retry to the same destination, with a new key.
  expect_blocked(create(payout_body("1", "USDC", "base", address)), "internal_blacklist");
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(Payouts, AboveAutoApprovalWaitsThenApprovalCompletes) {
  const auto response = create(payout_body("15000", "USDC", "arbitrum", random_evm_address()));
  ASSERT_EQ(response.status, 202) << response.body;
  const std::string id = response.json()["id"].GetString();
  EXPECT_STREQ(response.json()["status"].GetString(), "pending_approval");
  EXPECT_EQ(usdc(), "985000/15000");
  const auto path = "/v1/payouts/" + id + "/approve";
  EXPECT_EQ(post(path, with_key(org_.test_key)).error_code(), "session_required");
  const auto stranger = stack_->dev_session("stranger@example.com");
  EXPECT_EQ(post(path, {{"Authorization", "Bearer " + stranger}}).status, 404);
  const auto approved = post(path, {{"Authorization", "Bearer " + org_.session}});
  ASSERT_EQ(approved.status, 200) << approved.body;
  EXPECT_STREQ(approved.json()["status"].GetString(), "processing");
  EXPECT_EQ(wait(id, {"completed"}), "completed");
  EXPECT_EQ(post(path, {{"Authorization", "Bearer " + org_.session}}).error_code(),
            "payout_not_approvable");
  EXPECT_EQ(usdc(), "985000/0");
}

// Screening reads the limits of a batch's organizations together: an override decides its own
// organization's payouts and no other's.
TEST_F(Payouts, AnAutoApprovalOverrideDecidesItsOrganizationsPayoutsOnly) {
  ASSERT_EQ(
      stack_->cli({"limits", "--org", org_.id, "--mode", "test", "--auto-approval-usd", "100"})
          .first,
      0);
  const auto other = stack_->create_organization();
  const auto over = create(payout_body("150", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(over.status, 202) << over.body;
  EXPECT_STREQ(over.json()["status"].GetString(), "pending_approval");
  const auto within = create(payout_body("100", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(within.status, 201) << within.body;
  const auto elsewhere = create_payout(stack_->http(), other.test_key, next_key(),
                                       payout_body("150", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(elsewhere.status, 201) << elsewhere.body;  // 202 when over the limit
}

TEST_F(Payouts, RejectReleasesTheHold) {
  const auto response = create(payout_body("20000", "USDC", "optimism", random_evm_address()));
  ASSERT_EQ(response.status, 202);
  const std::string id = response.json()["id"].GetString();
  const auto rejected =
      post("/v1/payouts/" + id + "/reject", {{"Authorization", "Bearer " + org_.session}});
  ASSERT_EQ(rejected.status, 200) << rejected.body;
  EXPECT_STREQ(rejected.json()["status"].GetString(), "cancelled");
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.cancelled"), 1);
}

TEST_F(Payouts, CancelInPendingApprovalThenNotTwice) {
  const auto response = create(payout_body("12000", "USDC", "bsc", random_evm_address()));
  ASSERT_EQ(response.status, 202);
  const std::string id = response.json()["id"].GetString();
  const auto cancel = "/v1/payouts/" + id + "/cancel";
  const auto cancelled = post(cancel, with_key(org_.test_key));
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_STREQ(cancelled.json()["status"].GetString(), "cancelled");
  EXPECT_EQ(usdc(), "1000000/0");
  const auto again = post(cancel, with_key(org_.test_key));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.error_code(), "payout_not_cancelable");
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.cancelled"), 1);
}

TEST_F(Payouts, CancelCompletedIsNotCancelable) {
  const auto response = create(payout_body("3", "USDC", "polygon", random_evm_address()));
  const std::string id = response.json()["id"].GetString();
  ASSERT_EQ(wait(id, {"completed"}), "completed");
  const auto refused = post("/v1/payouts/" + id + "/cancel", with_key(org_.test_key));
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.error_code(), "payout_not_cancelable");
  EXPECT_EQ(post("/v1/payouts/po_unknown/cancel", with_key(org_.test_key)).error_code(),
            "resource_missing");
}

TEST_F(Payouts, ValidationErrorsNameTheField) {
  struct Case {
    std::string body;
    int status;
    std::string code;
    std::string param;
  };
  const auto good = random_evm_address();
  const std::vector<Case> cases{
      {payout_body("1", "USDC", "dogechain", good), 422, "unsupported_destination",
       "destination.network"},
      {payout_body("1", "ETH", "tron", listed_address("TRX")), 422, "unsupported_destination",
       "currency"},
      {payout_body("1", "ETH", "solana", good), 422, "unsupported_destination", "currency"},
      {payout_body("1", "USDC", "polygon", "0x1234"), 422, "unsupported_destination",
       "destination.address"},
      {payout_body("1", "USDC", "polygon", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"), 422,
       "unsupported_destination", "destination.address"},
      {payout_body("1", "DOGE", "polygon", good), 422, "unsupported_destination", "currency"},
      {payout_body("1.1234567", "USDC", "polygon", good), 400, "bad_request", "amount"},
      {payout_body("0", "USDC", "polygon", good), 400, "bad_request", "amount"},
      {payout_body("-1", "USDC", "polygon", good), 400, "bad_request", "amount"},
      {payout_body("1e3", "USDC", "polygon", good), 400, "bad_request", "amount"},
      {R"({"amount":1,"currency":"USDC","destination":{"network":"polygon","address":")" + good +
           R"("}})",
       400, "bad_request", "amount"},
      {R"({"amount":"1","currency":"USDC","rail":"wire","destination":{"network":"polygon","address":")" +
           good + R"("}})",
       400, "bad_request", "rail"},
      {R"({"amount":"1","currency":"USDC","destination":{"network":"polygon","address":")" + good +
           R"(","memo":"x"}})",
       400, "bad_request", "destination.memo"},
      {R"({"amount":"1","currency":"USDC"})", 400, "bad_request", "destination"},
  };
  for (const auto& c : cases) {
    const auto response = create(c.body);
    EXPECT_EQ(response.status, c.status) << c.body << " -> " << response.body;
    EXPECT_EQ(response.error_code(), c.code) << c.body;
    EXPECT_EQ(response.error_param(), c.param) << c.body;
  }
  std::string metadata =
      R"({"amount":"1","currency":"USDC","destination":{"network":"polygon","address":")" + good +
      R"("},"metadata":{)";
  for (int i = 0; i < 51; ++i)
    metadata += (i ? "," : "") + ("\"k" + std::to_string(i) + "\":\"v\"");
  metadata += "}}";
  EXPECT_EQ(create(metadata).error_param(), "metadata");
  const auto no_key = stack_->http().post("/v1/payouts", payout_body("1", "USDC", "polygon", good),
                                          with_key(org_.test_key));
  EXPECT_EQ(no_key.status, 400);
  EXPECT_EQ(no_key.error_param(), "Idempotency-Key");
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(Payouts, IdempotentReplayAndConflict) {
  const auto body = payout_body("7", "USDC", "polygon", random_evm_address());
  const auto first = create(body, "order-1");
  ASSERT_EQ(first.status, 201);
  const auto replay = create(body, "order-1");
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.body, first.body);
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  EXPECT_EQ(replay.header("request-id"), first.header("request-id"));
  // A replayed error is the original error, its request_id and Request-Id included.
  const auto blocked_body = payout_body("2", "USDC", "polygon", blocked_trigger_address());
  const auto blocked = create(blocked_body, "order-blocked");
  ASSERT_EQ(blocked.status, 403);
  const auto blocked_replay = create(blocked_body, "order-blocked");
  EXPECT_EQ(blocked_replay.status, 403);
  EXPECT_EQ(blocked_replay.body, blocked.body);
  EXPECT_EQ(blocked_replay.header("request-id"),
            std::string(blocked_replay.json()["error"]["request_id"].GetString()));
  const auto conflict =
      create(payout_body("8", "USDC", "polygon", random_evm_address()), "order-1");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.error_code(), "idempotency_conflict");
  // Keys are scoped per organization: another organization may use the same key.
  const auto other = stack_->create_organization();
  const auto theirs = create_payout(stack_->http(), other.test_key, "order-1", body);
  EXPECT_EQ(theirs.status, 201);
  EXPECT_NE(std::string(theirs.json()["id"].GetString()), first.json()["id"].GetString());
  EXPECT_EQ(
      stack_->database().scalar("SELECT count(*) FROM payouts WHERE org_id = '" + org_.id + "'"),
      "2");
  wait(first.json()["id"].GetString(), {"completed"});
}

TEST_F(Payouts, LimitsAndBalanceRefusals) {
  const auto over = create(payout_body("100000.01", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(over.status, 403);
  EXPECT_EQ(over.error_code(), "limit_exceeded");
  // Within raised limits, more ETH than the 1,000 ETH sandbox balance is refused with 402.
  ASSERT_EQ(stack_
                ->cli({"limits", "--org", org_.id, "--mode", "test", "--per-payout-usd", "5000000",
                       "--daily-usd", "5000000"})
                .first,
            0);
  const auto short_balance = create(payout_body("1001", "ETH", "ethereum", random_evm_address()));
  EXPECT_EQ(short_balance.status, 402);
  EXPECT_EQ(short_balance.error_code(), "insufficient_balance");
  ASSERT_EQ(stack_->cli({"limits", "--org", org_.id, "--mode", "test", "--daily-usd", "50"}).first,
            0);
  const auto first = create(payout_body("30", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(first.status, 201) << first.body;
  const auto second = create(payout_body("30", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(second.status, 403);
  EXPECT_EQ(second.error_code(), "limit_exceeded");
  // A payout that ends without moving money gives its amount back to the daily limit.
  const auto blocked = create(payout_body("20", "USDC", "polygon", blocked_trigger_address()));
  EXPECT_EQ(blocked.status, 403);
  EXPECT_EQ(create(payout_body("20", "USDC", "polygon", random_evm_address())).status, 201);
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM payouts WHERE org_id = '" + org_.id +
                                      "' AND status NOT IN ('blocked')"),
            "2");
}

TEST_F(Payouts, ListFiltersByStatusAndCreationTime) {
  const auto done = create(payout_body("1", "USDC", "polygon", random_evm_address()));
  const auto held = create(payout_body("10001", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(held.status, 202);
  wait(done.json()["id"].GetString(), {"completed"});
  const auto pending =
      stack_->http().get("/v1/payouts?status=pending_approval", with_key(org_.test_key));
  ASSERT_EQ(pending.status, 200);
  auto list = pending.json();
  ASSERT_EQ(list["data"].Size(), 1u);
  EXPECT_STREQ(list["data"][0]["id"].GetString(), held.json()["id"].GetString());
  EXPECT_EQ(stack_->http().get("/v1/payouts?status=done", with_key(org_.test_key)).error_param(),
            "status");
  const auto future =
      stack_->http().get("/v1/payouts?created_gte=2999-01-01T00:00:00Z", with_key(org_.test_key));
  EXPECT_EQ(future.json()["data"].Size(), 0u);
  const auto all = stack_->http().get("/v1/payouts?created_lte=2999-01-01T00:00:00Z&limit=1",
                                      with_key(org_.test_key));
  EXPECT_EQ(all.json()["data"].Size(), 1u);
  EXPECT_TRUE(all.json()["has_more"].GetBool());
  post("/v1/payouts/" + std::string(held.json()["id"].GetString()) + "/cancel",
       with_key(org_.test_key));
}

TEST_F(Payouts, BalancesShowAvailableAndHeld) {
  const auto held = create(payout_body("10000.000001", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(held.status, 202) << held.body;
  const auto balances = stack_->http().get("/v1/balances", with_key(org_.test_key));
  ASSERT_EQ(balances.status, 200);
  auto list = balances.json();
  ASSERT_EQ(list["data"].Size(), 3u);
  EXPECT_STREQ(list["data"][0]["asset"].GetString(), "USDC");
  EXPECT_STREQ(list["data"][0]["available"].GetString(), "989999.999999");
  EXPECT_STREQ(list["data"][0]["held"].GetString(), "10000.000001");
  EXPECT_STREQ(list["data"][2]["available"].GetString(), "1000.000000000000000000");
  post("/v1/payouts/" + std::string(held.json()["id"].GetString()) + "/cancel",
       with_key(org_.test_key));
}

}  // namespace
}  // namespace payrail::testing
