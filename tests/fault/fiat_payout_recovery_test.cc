// Recovery of fiat payouts: kill -9 each fiat worker role (screening, execution, settlement)
// mid-stream and restart it, and replay every fiat payout topic from offset 0. After each: every
// fiat payout reaches the right terminal state exactly once, no event is duplicated, every hold
// has exactly one outcome, and balances equal the journal.
#include <gtest/gtest.h>

#include <signal.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/fiat_payouts.h"
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

// Execution's second step is decided by the partner's outcome it records on the payout, not by
// the consumed mark. Approvals replayed while their payouts wait for settlement (processing,
// accepted by the partner) must send nothing again and record nothing twice.
TEST_F(FiatPayoutRecovery, ReplayingApprovalsAwaitingSettlementSendsNothingTwice) {
  constexpr int kPayouts = 4;
  StoppedRole settlement(*stack_, "settlement");
  const auto org = stack_->create_organization();
  std::vector<std::string> payout_ids;
  for (int i = 0; i < kPayouts; ++i) {
    const auto response =
        create_fiat_payout(stack_->http(), org.test_key, "awaiting-settlement-" + std::to_string(i),
                           fiat_payout_body("10.00", mexico_case(), "Ana Souza"));
    ASSERT_EQ(response.status, 201) << response.body;
    payout_ids.push_back(response.json()["id"].GetString());
  }
  const auto& db = stack_->database();
  const auto ids = sql_list(payout_ids);
  ASSERT_EQ(wait_for_value(db,
                           "SELECT count(*) FROM fiat_payouts WHERE partner_outcome = 'accepted' "
                           "AND id IN " +
                               ids,
                           std::to_string(kPayouts)),
            std::to_string(kPayouts));
  const auto sent_and_recorded =
      "SELECT (SELECT count(*) FROM outbox WHERE topic = 'fiat_payouts.sent' AND message_key IN " +
      ids + ") || '/' || (SELECT count(*) FROM events WHERE resource_id IN " + ids +
      ") || '/' || (SELECT count(*) FROM resource_transitions WHERE resource_id IN " + ids +
      ") || '/' || (SELECT string_agg(partner_reference, ',' ORDER BY id) FROM fiat_payouts "
      "WHERE id IN " +
      ids + ")";
  const auto before = db.scalar(sent_and_recorded);
  EXPECT_EQ(before.substr(0, before.find('/')), std::to_string(kPayouts));

  EXPECT_EQ(replay_from_zero(*stack_, "fiat_payouts.approved", "execution"), "");
  EXPECT_EQ(db.scalar(sent_and_recorded), before);

  settlement.start();
  for (const auto& id : payout_ids) {
    EXPECT_EQ(wait_for_fiat_status(stack_->http(), org.test_key, id, {"completed"}), "completed");
    EXPECT_EQ(event_count(db, id, "fiat_payout.completed"), 1) << id;
  }
  EXPECT_EQ(ledger_mismatch(db), "");
}

}  // namespace
}  // namespace payrail::testing
