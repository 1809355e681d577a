// Concurrency: many creates racing for one balance, and many identical requests racing with one
// Idempotency-Key. Exactness is checked in Postgres, not only in the responses.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class PayoutConcurrency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The API pool is the default size here so requests really run concurrently.
    stack_ =
        new TestStack({.env = {{"PAYRAIL_API_WORKERS", "16"}, {"PAYRAIL_DB_POOL_SIZE", "16"}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  static TestStack* stack_;
};
TestStack* PayoutConcurrency::stack_ = nullptr;

// Runs `count` requests on `count` threads released at the same moment.
std::vector<HttpResult> race(int count, const std::function<HttpResult(int)>& request) {
  std::vector<HttpResult> results(static_cast<std::size_t>(count));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      results[static_cast<std::size_t>(i)] = request(i);
    });
  }
  go = true;
  for (auto& thread : threads) thread.join();
  return results;
}

TEST_F(PayoutConcurrency, TwoHundredCreatesForABalanceThatCoversFifty) {
  const auto org = stack_->create_organization();
  // 1,000,000 USDC sandbox / 20,000 each = exactly 50. 20,000 is above auto-approval, so the
  // accepted ones wait in pending_approval with their funds held (202).
  const auto results = race(200, [&](int i) {
    return create_payout(stack_->http(), org.test_key, "race-" + std::to_string(i),
                         payout_body("20000", "USDC", "polygon", random_evm_address()));
  });
  std::map<int, int> by_status;
  for (const auto& result : results) {
    ++by_status[result.status];
    if (result.status == 402) {
      EXPECT_EQ(result.error_code(), "insufficient_balance");
    }
  }
  EXPECT_EQ(by_status[202], 50);
  EXPECT_EQ(by_status[402], 150);
  EXPECT_EQ(by_status.size(), 2u) << "unexpected statuses";
  const auto& db = stack_->database();
  EXPECT_EQ(db.scalar("SELECT count(*) FROM payouts WHERE org_id = '" + org.id + "'"), "50");
  EXPECT_EQ(balance_of(db, org.id, "test", "USDC"), "0/1000000");
  EXPECT_EQ(ledger_mismatch(db), "");
}

TEST_F(PayoutConcurrency, HundredIdenticalRequestsMakeOnePayout) {
  const auto org = stack_->create_organization();
  const auto body = payout_body("12.34", "USDC", "polygon", random_evm_address());
  const auto results =
      race(100, [&](int) { return create_payout(stack_->http(), org.test_key, "same-key", body); });
  std::set<std::string> ids;
  int in_flight = 0;
  for (const auto& result : results) {
    if (result.status == 201) {
      ids.insert(result.json()["id"].GetString());
    } else {
      EXPECT_EQ(result.status, 409) << result.body;
      EXPECT_EQ(result.error_code(), "idempotency_conflict");
      EXPECT_EQ(result.header("retry-after"), "1");
      ++in_flight;
    }
  }
  EXPECT_LE(ids.size(), 1u);
  const auto& db = stack_->database();
  EXPECT_EQ(db.scalar("SELECT count(*) FROM payouts WHERE org_id = '" + org.id + "'"), "1");
  const auto id = db.scalar("SELECT id FROM payouts WHERE org_id = '" + org.id + "'");
  if (!ids.empty()) {
    EXPECT_EQ(*ids.begin(), id);
  }
  // After the first finished, a retry gets the original answer.
  const auto replay = create_payout(stack_->http(), org.test_key, "same-key", body);
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(std::string(replay.json()["id"].GetString()), id);
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  EXPECT_EQ(wait_for_status(stack_->http(), org.test_key, id, {"completed"}), "completed");
  EXPECT_EQ(balance_of(db, org.id, "test", "USDC"), "999987.66/0");
  EXPECT_EQ(ledger_mismatch(db), "");
  RecordProperty("in_flight_conflicts", in_flight);
}

}  // namespace
}  // namespace payrail::testing
