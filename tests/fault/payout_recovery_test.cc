// Recovery: kill -9 each worker role mid-stream and restart it, kill the API right after it
// answered, replay every payout topic from offset 0, restart the (in-memory) broker. After each:
// every payout reaches the right terminal state exactly once, no event is duplicated, every hold
// has exactly one outcome, and balances equal the journal.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "tests/support/payouts.h"
#include "tests/support/replay.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kBatchSize = 40;
constexpr auto kBetweenCreates = std::chrono::milliseconds(40);

class PayoutRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "300"}}});
  }
  static void TearDownTestSuite() { delete stack_; }

  // Creates a batch in the background: every 4th fails its broadcast, every 4th is blocked,
  // the rest complete. Returns payout id -> expected terminal status, once all were sent.
  struct Batch {
    TestOrganization org;
    std::map<std::string, std::string> expected;
    std::mutex mutex;
    std::thread thread;
  };
  std::unique_ptr<Batch> start_batch() {
    auto batch = std::make_unique<Batch>();
    batch->org = stack_->create_organization();
    batch->thread = std::thread([this, raw = batch.get()] {
      for (int i = 0; i < kBatchSize; ++i) {
        const auto address = i % 4 == 0   ? fail_trigger_address()
                             : i % 4 == 1 ? blocked_trigger_address()
                                          : random_evm_address();
        const auto expected = i % 4 == 0 ? "failed" : i % 4 == 1 ? "blocked" : "completed";
        send_until_answered(*raw, i, address, expected);
        std::this_thread::sleep_for(kBetweenCreates);
      }
    });
    return batch;
  }

  // Retries with the same Idempotency-Key until the API answers (it may be restarting).
  void send_until_answered(Batch& batch, int index, const std::string& address,
                           const std::string& expected) {
    const auto body = payout_body("1", "USDC", "polygon", address);
    for (int attempt = 0; attempt < 600; ++attempt) {
      try {
        const auto response = create_payout(stack_->http(), batch.org.test_key,
                                            "batch-" + std::to_string(index), body);
        std::string id;
        if (response.status == 201) id = response.json()["id"].GetString();
        if (response.status == 403) id = response.json()["error"]["payout_id"].GetString();
        if (!id.empty()) {
          std::lock_guard lock(batch.mutex);
          batch.expected[id] = expected;
          return;
        }
      } catch (const std::exception&) {
        // Connection refused while the API restarts: retry with the same key.
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "payout " << index << " never answered";
  }

  void verify(Batch& batch) {
    batch.thread.join();
    ASSERT_EQ(batch.expected.size(), static_cast<std::size_t>(kBatchSize));
    int completed = 0;
    for (const auto& [id, expected] : batch.expected) {
      EXPECT_EQ(wait_for_status(stack_->http(), batch.org.test_key, id, {expected},
                                std::chrono::seconds(90)),
                expected)
          << id;
      completed += expected == "completed";
      expect_exactly_once(id, expected);
    }
    const auto& db = stack_->database();
    EXPECT_EQ(db.scalar("SELECT count(*) FROM payouts WHERE org_id = '" + batch.org.id + "'"),
              std::to_string(kBatchSize));
    EXPECT_EQ(balance_of(db, batch.org.id, "test", "USDC"),
              std::to_string(1000000 - completed) + "/0");
    EXPECT_EQ(ledger_mismatch(db), "");
    EXPECT_EQ(db.scalar("SELECT count(*) FROM (SELECT resource_id FROM events GROUP BY resource_id "
                        "HAVING max(sequence) <> count(*)) gaps"),
              "0");
  }

  void expect_exactly_once(const std::string& id, const std::string& expected) {
    const auto& db = stack_->database();
    EXPECT_EQ(event_count(db, id, "payout.created"), 1) << id;
    EXPECT_EQ(event_count(db, id, "payout." + expected), 1) << id;
    EXPECT_EQ(event_count(db, id, "payout.processing"), expected == "blocked" ? 0 : 1) << id;
    const auto outcome = expected == "completed" ? "settle"
                         : expected == "failed"  ? "refund"
                                                 : "release";
    EXPECT_EQ(db.scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries WHERE "
                        "resource_id = '" +
                        id + "'"),
              std::string("hold,") + outcome)
        << id;
  }

  void kill_and_restart_mid_stream(const std::string& role) {
    auto batch = start_batch();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    stack_->stop(role, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stack_->start(role);
    verify(*batch);
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
  verify(*batch);
}

// Replaying a topic = rewinding its consumer group to offset 0 while the group is stopped.
TEST_F(PayoutRecovery, ReplayingEveryPayoutTopicFromZeroChangesNothing) {
  auto batch = start_batch();
  verify(*batch);
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
