// Recovery: kill -9 each worker role mid-stream and restart it, kill the API right after it
// answered, replay every payout topic from offset 0, restart the (in-memory) broker. After each:
// every payout reaches the right terminal state exactly once, no event is duplicated, every hold
// has exactly one outcome, and balances equal the journal.
#include <gtest/gtest.h>

#include <signal.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

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

// The wait for screening's decision starts before the create's transaction. A create that runs
// longer than the whole wait (here: blocked on its balance row) must still answer from its
// committed payout once it commits, never read it before (which would find nothing and fail).
TEST_F(PayoutRecovery, CreateOutlastingTheScreeningWaitAnswersFromTheCommittedPayout) {
  const auto org = stack_->create_organization();
  auto connection = stack_->database().connect();
  pqxx::work hold(*connection);
  hold.exec("SELECT 1 FROM balances WHERE org_id = " + hold.quote(org.id) +
            " AND mode = 'test' AND asset = 'USDC' FOR UPDATE");
  const auto body = payout_body("25", "USDC", "polygon", random_evm_address());
  HttpResult response;
  std::thread create(
      [&] { response = create_payout(stack_->http(), org.test_key, "slow-create", body); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // > PAYRAIL_SCREENING_WAIT_MS
  hold.commit();
  create.join();
  ASSERT_EQ(response.status, 201) << response.body;
  const std::string id = response.json()["id"].GetString();
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM payouts WHERE id = '" + id + "'"), "1");
  // The answer was recorded with the read: a retry gets the same one.
  const auto replay = create_payout(stack_->http(), org.test_key, "slow-create", body);
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.body, response.body);
}

// Replaying a topic = rewinding its consumer group to offset 0 while the group is stopped.
TEST_F(PayoutRecovery, ReplayingEveryPayoutTopicFromZeroChangesNothing) {
  auto batch = start_batch();
  batch->verify();
  const auto& db = stack_->database();
  const auto snapshot = [&] {
    return db.scalar(
        "SELECT (SELECT count(*) FROM events) || '/' || "
        "(SELECT count(*) FROM resource_transitions WHERE resource_type = 'payout') || '/' || "
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

// Execution's second step is decided by the broadcast outcome it records, not by the consumed
// mark. Approvals replayed while their payouts wait for settlement (processing, broadcast
// recorded) must record nothing again and send no second settlement message.
TEST_F(PayoutRecovery, ReplayingApprovalsAwaitingSettlementSendsNothingTwice) {
  constexpr int kPayouts = 5;
  StoppedRole settlement(*stack_, "settlement");
  const auto org = stack_->create_organization();
  std::vector<std::string> payout_ids;
  for (int i = 0; i < kPayouts; ++i) {
    const auto response =
        create_payout(stack_->http(), org.test_key, "awaiting-settlement-" + std::to_string(i),
                      payout_body("10", "USDC", "polygon", random_evm_address()));
    ASSERT_EQ(response.status, 201) << response.body;
    payout_ids.push_back(response.json()["id"].GetString());
  }
  const auto& db = stack_->database();
  const auto ids = sql_list(payout_ids);
  ASSERT_EQ(wait_for_value(db,
                           "SELECT count(*) FROM payout_broadcasts WHERE outcome = 'broadcast' "
                           "AND payout_id IN " +
                               ids,
                           std::to_string(kPayouts)),
            std::to_string(kPayouts));
  const auto sent_and_recorded =
      "SELECT (SELECT count(*) FROM outbox WHERE topic = 'payouts.broadcast' AND message_key IN " +
      ids + ") || '/' || (SELECT count(*) FROM events WHERE resource_id IN " + ids +
      ") || '/' || (SELECT count(*) FROM resource_transitions WHERE resource_id IN " + ids + ")";
  const auto before = db.scalar(sent_and_recorded);
  EXPECT_EQ(before.substr(0, before.find('/')), std::to_string(kPayouts));

  EXPECT_EQ(replay_from_zero(*stack_, "payouts.approved", "execution"), "");
  EXPECT_EQ(db.scalar(sent_and_recorded), before);

  settlement.start();
  for (const auto& id : payout_ids) {
    EXPECT_EQ(wait_for_status(stack_->http(), org.test_key, id, {"completed"}), "completed");
    EXPECT_EQ(event_count(db, id, "payout.completed"), 1) << id;
  }
  EXPECT_EQ(ledger_mismatch(db), "");
}

}  // namespace
}  // namespace payrail::testing
