// Recovery of fiat payouts: kill -9 each fiat worker role (screening, execution, settlement)
// mid-stream and restart it, and replay every fiat payout topic from offset 0. After each: every
// fiat payout reaches the right terminal state exactly once, no event is duplicated, every hold
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

constexpr int kBatchSize = 24;

class FiatPayoutRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {"screening", "execution", "settlement"},
                            .env = {{"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "300"},
                                    {"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"}}});
  }
  static void TearDownTestSuite() { delete stack_; }

  // Every 4th is returned by the partner, every 4th is blocked, the rest complete.
  static std::unique_ptr<PayoutBatch> start_batch() {
    return std::make_unique<PayoutBatch>(*stack_, kBatchSize, std::chrono::milliseconds(40),
                                         BatchKind::fiat_payout);
  }

  void kill_and_restart_mid_stream(const std::string& role) {
    auto batch = start_batch();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stack_->stop(role, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stack_->start(role);
    batch->verify();
  }

  static TestStack* stack_;
};
TestStack* FiatPayoutRecovery::stack_ = nullptr;

TEST_F(FiatPayoutRecovery, KillNineScreeningMidStream) {
  kill_and_restart_mid_stream("screening");
}
TEST_F(FiatPayoutRecovery, KillNineExecutionMidStream) {
  kill_and_restart_mid_stream("execution");
}
TEST_F(FiatPayoutRecovery, KillNineSettlementMidStream) {
  kill_and_restart_mid_stream("settlement");
}

// Replaying a topic = rewinding its consumer group to offset 0 while the group is stopped.
TEST_F(FiatPayoutRecovery, ReplayingEveryFiatTopicFromZeroChangesNothing) {
  start_batch()->verify();
  const auto& db = stack_->database();
  const auto snapshot = [&] {
    return db.scalar(
        "SELECT (SELECT count(*) FROM events) || '/' || "
        "(SELECT count(*) FROM resource_transitions) || '/' || "
        "(SELECT count(*) FROM journal_entries) || '/' || "
        "(SELECT string_agg(id || status || coalesce(partner_reference, ''), ',' ORDER BY id) "
        " FROM fiat_payouts) || '/' || "
        "(SELECT string_agg(org_id || mode || asset || available || held, ',' "
        " ORDER BY org_id, mode, asset) FROM balances)");
  };
  const auto before = snapshot();
  const std::vector<std::pair<std::string, std::string>> topics{
      {"fiat_payouts.requested", "screening"},
      {"fiat_payouts.approved", "execution"},
      {"fiat_payouts.sent", "settlement"}};
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
