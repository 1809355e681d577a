// Scale and replay, on a stack with two processes of each payout role and the outbox re-drive
// pushed out of reach (10 min), so recovery comes from Kafka and the operator's tools alone:
// - kill -9 one of two processes of a role under load (payouts and fiat payouts): its partitions
//   of both topics move to the other process and every payout and fiat payout ends exactly once;
// - `payrail offsets-reset --to-time` replays only what follows the time and changes nothing
//   already applied, and brings back work a group had skipped;
// - `payrail republish` re-publishes a time range from Postgres after the broker lost its data:
//   already-applied messages change nothing, the lost ones are applied.
#include <gtest/gtest.h>

#include <signal.h>

#include <thread>

#include "tests/support/metrics.h"
#include "tests/support/payout_batch.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kBatchSize = 24;
const std::vector<std::string> kRoles{"screening", "execution", "settlement"};

class ScaleAndReplay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = kRoles,
                            .env = {{"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "600000"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "300"},
                                    {"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"},
                                    // A dead member's partitions move after 3 s.
                                    {"PAYRAIL_KAFKA_SESSION_TIMEOUT_MS", "3000"}},
                            .processes = {{"screening", 2}, {"execution", 2}, {"settlement", 2}}});
  }
  static void TearDownTestSuite() { delete stack_; }

  // The database clock (every process's clock: one machine) as 2026-11-22T10:00:00.123Z.
  static std::string database_time(const std::string& offset = "0 seconds") {
    return stack_->database().scalar("SELECT to_char((clock_timestamp() + interval '" + offset +
                                     "') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
  }

  // Everything applying a message can change, for the given organizations.
  static std::string snapshot(const std::vector<std::string>& org_ids) {
    std::string list;
    for (const auto& id : org_ids) list += (list.empty() ? "'" : ",'") + id + "'";
    const auto payouts = "(SELECT id FROM payouts WHERE org_id IN (" + list + "))";
    return stack_->database().scalar(
        "SELECT (SELECT count(*) FROM events WHERE resource_id IN " + payouts + ") || '/' || " +
        "(SELECT count(*) FROM resource_transitions WHERE resource_id IN " + payouts + ") || '/' || " +
        "(SELECT count(*) FROM journal_entries WHERE resource_id IN " + payouts + ") || '/' || " +
        "(SELECT string_agg(status, ',' ORDER BY id) FROM payouts WHERE org_id IN (" + list +
        ")) || '/' || (SELECT string_agg(org_id || mode || asset || available || held, ',' "
        "ORDER BY org_id, mode, asset) FROM balances WHERE org_id IN (" +
        list + "))");
  }

  static long lag(const std::string& topic) {
    const auto [code, output] = stack_->cli({"consumer-lag", "--topic", topic});
    EXPECT_EQ(code, 0) << output;
    return code == 0 ? std::stol(output) : -1;
  }

  static void wait_caught_up(const std::string& topic) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (lag(topic) != 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_EQ(lag(topic), 0) << topic << " was not applied to the end";
  }

  static void stop_role(const std::string& role) {
    for (const auto& name : stack_->process_names(role)) stack_->stop(name);
  }
  static void start_role(const std::string& role) { stack_->start(stack_->process_names(role)); }

  static void reset_to_time(const std::string& time, long expected_to_apply) {
    const auto [code, output] =
        stack_->cli({"offsets-reset", "--topic", "payouts.requested", "--to-time", time});
    ASSERT_EQ(code, 0) << output;
    EXPECT_NE(output.find(": " + std::to_string(expected_to_apply) + " messages to apply"),
              std::string::npos)
        << output;
    EXPECT_EQ(lag("payouts.requested"), expected_to_apply);
  }

  // Kills the second process of `role` under a load of payouts and fiat payouts, and checks
  // that the first took over all of the role's partitions of both topics and that every payout
  // and fiat payout ended exactly once; then restarts it.
  void kill_one_of_two(const std::string& role, const std::vector<std::string>& topics) {
    const auto survivor = role;
    const auto victim = role + "-2";
    PayoutBatch payouts(*stack_, kBatchSize);
    PayoutBatch fiat_payouts(*stack_, kBatchSize, std::chrono::milliseconds(40),
                             BatchKind::fiat_payout);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    stack_->stop(victim, SIGKILL);
    payouts.verify();
    fiat_payouts.verify();
    for (const auto& topic : topics) {
      const auto owned = [&] {
        return Scrape::from(stack_->metrics_url(survivor))
            .sum("payrail_consumer_assigned_partitions", {{"topic", topic}});
      };
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (owned() != 8 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      EXPECT_EQ(owned(), 8) << survivor << " did not take over the " << topic << " partitions of "
                            << victim;
    }
    stack_->start(victim);
  }

  static void wait_published(const std::string& topic) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const auto unpublished = [&] {
      return stack_->database().scalar("SELECT count(*) FROM outbox WHERE topic = '" + topic +
                                       "' AND published_at IS NULL");
    };
    while (unpublished() != "0" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(unpublished(), "0") << topic;
  }

  inline static TestStack* stack_ = nullptr;
};

TEST_F(ScaleAndReplay, KillingOneOfTwoScreeningProcessesLosesNothing) {
  kill_one_of_two("screening", {"payouts.requested", "fiat_payouts.requested"});
}
TEST_F(ScaleAndReplay, KillingOneOfTwoExecutionProcessesLosesNothing) {
  kill_one_of_two("execution", {"payouts.approved", "fiat_payouts.approved"});
}
TEST_F(ScaleAndReplay, KillingOneOfTwoSettlementProcessesLosesNothing) {
  kill_one_of_two("settlement", {"payouts.broadcast", "fiat_payouts.sent"});
}

TEST_F(ScaleAndReplay, ReplayFromATimeAppliesOnlyWhatFollowsAndChangesNothing) {
  PayoutBatch before(*stack_, kBatchSize, std::chrono::milliseconds(10));
  before.verify();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto cut = database_time();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  PayoutBatch after(*stack_, kBatchSize, std::chrono::milliseconds(10));
  after.verify();
  const std::vector<std::string> orgs{before.organization().id, after.organization().id};
  const auto applied = snapshot(orgs);

  stop_role("screening");
  reset_to_time(cut, kBatchSize);  // exactly the later batch's messages
  start_role("screening");
  wait_caught_up("payouts.requested");
  EXPECT_EQ(snapshot(orgs), applied);
  EXPECT_EQ(ledger_mismatch(stack_->database()), "");
}

TEST_F(ScaleAndReplay, ReplayFromATimeFinishesWorkTheGroupHadSkipped) {
  stop_role("screening");
  const auto start = database_time();
  PayoutBatch skipped(*stack_, kBatchSize, std::chrono::milliseconds(10));
  skipped.wait_answered();  // accepted and pending: nobody screens them
  wait_published("payouts.requested");
  // An operator moves the group past them by mistake (a time after the last message).
  reset_to_time(database_time("1 hour"), 0);
  start_role("screening");
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM payouts WHERE org_id = '" +
                                      skipped.organization().id + "' AND status = 'pending'"),
            std::to_string(kBatchSize));
  // Replaying from before they were created finishes them, exactly once.
  stop_role("screening");
  reset_to_time(start, kBatchSize);
  start_role("screening");
  skipped.verify();
}

TEST_F(ScaleAndReplay, RepublishAfterTheBrokerLostItsMessages) {
  const auto start = database_time();
  PayoutBatch applied(*stack_, kBatchSize, std::chrono::milliseconds(10));
  applied.verify();
  const auto applied_before = snapshot({applied.organization().id});

  stop_role("screening");
  PayoutBatch lost(*stack_, kBatchSize, std::chrono::milliseconds(10));
  lost.wait_answered();
  // Every payouts.requested message is on the broker; then the broker loses everything.
  wait_published("payouts.requested");
  stack_->stop("broker");
  stack_->start("broker");
  start_role("screening");
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM payouts WHERE org_id = '" +
                                      lost.organization().id + "' AND status = 'pending'"),
            std::to_string(kBatchSize));

  const auto [code, output] = stack_->cli({"republish", "--topic", "payouts.requested", "--from",
                                           start, "--to", database_time("1 second")});
  ASSERT_EQ(code, 0) << output;
  EXPECT_NE(output.find("republished " + std::to_string(2 * kBatchSize) + " messages"),
            std::string::npos)
      << output;
  lost.verify();
  wait_caught_up("payouts.requested");
  EXPECT_EQ(snapshot({applied.organization().id}), applied_before);
}

}  // namespace
}  // namespace payrail::testing
