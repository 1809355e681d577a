// Recovery: kill -9 each worker role mid-stream and restart it, kill the API right after it
// answered, replay every payout topic from offset 0, restart the (in-memory) broker. After each:
// every payout reaches the right terminal state exactly once, no event is duplicated, every hold
// has exactly one outcome, and balances equal the journal.
#include <gtest/gtest.h>

#include <signal.h>

#include <memory>
#include <thread>

#include "tests/support/payout_batch.h"
#include "tests/support/payouts.h"
#include "tests/support/replay.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kBatchSize = 40;

class PayoutRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "300"}}});
  }
  static void TearDownTestSuite() { delete stack_; }

  std::unique_ptr<PayoutBatch> start_batch() {
    return std::make_unique<PayoutBatch>(*stack_, kBatchSize);
  }

  void kill_and_restart_mid_stream(const std::string& role) {
    auto batch = start_batch();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    stack_->stop(role, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stack_->start(role);
    batch->verify();
  }

  static TestStack* stack_;
};
TestStack* PayoutRecovery::stack_ = nullptr;

TEST_F(PayoutRecovery, KillNineScreeningMidStream) {
  kill_and_restart_mid_stream("screening");
}
TEST_F(PayoutRecovery, KillNineExecutionMidStream) {
  kill_and_restart_mid_stream("execution");
}
TEST_F(PayoutRecovery, KillNineSettlementMidStream) {
  kill_and_restart_mid_stream("settlement");
}
TEST_F(PayoutRecovery, KillNineApiMidStream) {
  kill_and_restart_mid_stream("api");
}

TEST_F(PayoutRecovery, BrokerRestartLosesNothing) {
  auto batch = start_batch();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  stack_->stop("broker");  // the mock cluster keeps everything in memory: all of it is gone
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  stack_->start("broker");
  batch->verify();
}

// Replaying a topic = rewinding its consumer group to offset 0 while the group is stopped.
TEST_F(PayoutRecovery, ReplayingEveryPayoutTopicFromZeroChangesNothing) {
  auto batch = start_batch();
  batch->verify();
  const auto& db = stack_->database();
  const auto snapshot = [&] {
    return db.scalar(
        "SELECT (SELECT count(*) FROM events) || '/' || "
        "(SELECT count(*) FROM payout_transitions) || '/' || "
        "(SELECT count(*) FROM journal_entries) || '/' || "
        "(SELECT string_agg(org_id || mode || asset || available || held, ',' "
        " ORDER BY org_id, mode, asset) FROM balances)");
  };
  const auto before = snapshot();
  const std::vector<std::pair<std::string, std::string>> topics{
      {"payouts.requested", "screening"},
      {"payouts.approved", "execution"},
      {"payouts.broadcast", "settlement"}};
  for (const auto& [topic, role] : topics) stack_->stop(role);
  for (const auto& [topic, role] : topics) {
    EXPECT_GT(reset_to_offset_zero(*stack_, topic), 0) << topic << " has nothing to replay";
  }
  for (const auto& [topic, role] : topics) stack_->start(role);
  for (const auto& [topic, role] : topics) {
    EXPECT_EQ(lag_after_replay(*stack_, topic), "0\n") << topic << " was not replayed to the end";
  }
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(ledger_mismatch(db), "");
}

}  // namespace
}  // namespace payrail::testing
