// Batches (infra/programs/runtime/worker.h): kill -9 of each worker role while its batch
// transaction is open, and a batch with one message that always fails. After each: nothing lost,
// nothing applied twice; the failing message is retried, parked (its partition moves on), listed
// for the operator, and applied once re-driven after the cause is fixed.
#include <gtest/gtest.h>

#include <signal.h>

#include <memory>
#include <thread>

#include "tests/support/metrics.h"
#include "tests/support/payout_batch.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kPayouts = 40;
constexpr int kAttemptsMax = 3;

class BatchFailures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Small batches so a backlog is several of them; creates do not wait for screening (it may
    // be stopped); parked after three attempts.
    stack_ = new TestStack({.env = {{"PAYRAIL_WORKER_BATCH_MAX", "8"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "0"},
                                    {"PAYRAIL_MESSAGE_ATTEMPTS_MAX", std::to_string(kAttemptsMax)},
                                    {"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"}}});
  }
  static void TearDownTestSuite() { delete stack_; }

  static std::string count_in(const TestOrganization& organization, const std::string& statuses) {
    return stack_->database().scalar("SELECT count(*) FROM payouts WHERE org_id = '" +
                                     organization.id + "' AND status IN (" + statuses + ")");
  }

  static void wait_until(const std::function<bool()>& done, const std::string& what) {
    for (int i = 0; i < 600 && !done(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(done()) << what;
  }

  // The role's backlog builds while it is stopped; the test then holds the row lock of one
  // payout the role is about to apply, restarts the role, waits until its batch transaction is
  // blocked on that lock (open, with the batch's earlier messages applied but not committed),
  // kills it with SIGKILL, lets go of the lock and restarts it.
  void kill_mid_batch(const std::string& role, const std::string& waiting_status,
                      const std::string& earlier_statuses) {
    stack_->stop(role);
    PayoutBatch batch(*stack_, kPayouts, std::chrono::milliseconds(0));
    const auto& organization = batch.organization();
    batch.wait_answered();
    wait_until([&] { return count_in(organization, earlier_statuses) == "0"; },
               "the stages before " + role + " did not drain");
    auto connection = stack_->database().connect();
    pqxx::work lock(*connection);
    const auto victim =
        lock.exec("SELECT id FROM payouts WHERE org_id = '" + organization.id + "' AND status = '" +
                  waiting_status + "' ORDER BY created_at OFFSET 10 LIMIT 1 FOR UPDATE");
    ASSERT_EQ(victim.size(), 1u);
    stack_->start(role);
    const auto application = "payrail-" + role;
    wait_until(
        [&] {
          return stack_->database().scalar(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" +
                     application + "' AND wait_event_type = 'Lock' AND xact_start IS NOT NULL") ==
                 "1";
        },
        role + " never blocked on the locked payout");
    stack_->stop(role, SIGKILL);
    lock.abort();
    stack_->start(role);
    batch.verify();
  }

  static TestStack* stack_;
};
TestStack* BatchFailures::stack_ = nullptr;

TEST_F(BatchFailures, KillNineScreeningMidBatch) {
  kill_mid_batch("screening", "pending", "'screening'");
}

TEST_F(BatchFailures, KillNineExecutionMidBatch) {
  kill_mid_batch("execution", "approved", "'pending', 'screening'");
}

TEST_F(BatchFailures, KillNineSettlementMidBatch) {
  kill_mid_batch("settlement", "processing", "'pending', 'screening', 'approved'");
}

// A payout whose screening always fails (a database trigger the test installs raises for its
// address: the kind of failure a bad row or a bug causes, not a dependency being down).
TEST_F(BatchFailures, AlwaysFailingMessageIsRetriedParkedAndRedriven) {
  const auto organization = stack_->create_organization();
  const auto poisoned_address = random_evm_address();
  const auto& db = stack_->database();
  {
    auto connection = db.connect();
    pqxx::work tx(*connection);
    tx.exec(
        "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF NEW.address = '" +
        poisoned_address +
        "' AND NEW.status <> OLD.status THEN RAISE EXCEPTION 'poisoned by the test'; END IF; "
        "RETURN NEW; END $$");
    tx.exec(
        "CREATE TRIGGER poison BEFORE UPDATE ON payouts FOR EACH ROW EXECUTE FUNCTION poison()");
    tx.commit();
  }
  stack_->stop("screening");
  std::vector<std::string> ids;
  std::string poisoned_id;
  for (int i = 0; i < 20; ++i) {
    const auto address = i == 9 ? poisoned_address : random_evm_address();
    const auto response =
        create_payout(stack_->http(), organization.test_key, "poison-" + std::to_string(i),
                      payout_body("1", "USDC", "polygon", address));
    ASSERT_EQ(response.status, 201) << response.body;
    ids.push_back(response.json()["id"].GetString());
    if (i == 9) poisoned_id = ids.back();
  }
  stack_->start("screening");

  // The rest of its batches is applied; the poisoned message is retried, then parked.
  for (const auto& id : ids) {
    if (id == poisoned_id) continue;
    EXPECT_EQ(wait_for_status(stack_->http(), organization.test_key, id, {"completed"}),
              "completed")
        << id;
  }
  // Attempts may exceed the maximum by a copy of the message the relay re-drove before it was
  // parked (a parked message fails again at once and stays parked).
  const auto parked_sql = "SELECT status || '/' || (attempts >= " + std::to_string(kAttemptsMax) +
                          ") FROM message_failures WHERE resource_id = '" + poisoned_id + "'";
  wait_until([&] { return db.scalar(parked_sql) == "parked/true"; }, "never parked");
  EXPECT_EQ(db.scalar("SELECT status FROM payouts WHERE id = '" + poisoned_id + "'"), "pending");
  EXPECT_EQ(balance_of(db, organization.id, "test", "USDC"), "999980/1");  // its hold is kept
  const auto scrape = Scrape::from(stack_->metrics_url("screening"));
  EXPECT_GE(scrape.sum("payrail_message_failures_total", {{"outcome", "retried"}}),
            kAttemptsMax - 1);
  EXPECT_GE(scrape.sum("payrail_message_failures_total", {{"outcome", "parked"}}), 1);
  const auto message_id = db.scalar(
      "SELECT message_id FROM message_failures WHERE resource_id = '" + poisoned_id + "'");
  const auto [listed_code, listed] = stack_->cli({"message-failures", "--status", "parked"});
  EXPECT_EQ(listed_code, 0);
  EXPECT_NE(listed.find(message_id), std::string::npos) << listed;
  EXPECT_NE(listed.find("poisoned by the test"), std::string::npos) << listed;

  // Parked means parked: not re-driven by the relay on its own (its re-drive runs every 2 s).
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_EQ(db.scalar(parked_sql), "parked/true");
  EXPECT_EQ(db.scalar("SELECT status FROM payouts WHERE id = '" + poisoned_id + "'"), "pending");

  // Fixed, then re-driven by the operator: applied once.
  db.scalar("DROP TRIGGER poison ON payouts; DROP FUNCTION poison()");
  const auto [redrive_code, redriven] =
      stack_->cli({"message-redrive", "--message", message_id, "--operator", "test-operator"});
  EXPECT_EQ(redrive_code, 0) << redriven;
  EXPECT_NE(redriven.find("redriven " + message_id), std::string::npos) << redriven;
  EXPECT_EQ(wait_for_status(stack_->http(), organization.test_key, poisoned_id, {"completed"}),
            "completed");
  const auto [resolved_code, resolved] = stack_->cli({"message-failures", "--status", "resolved"});
  EXPECT_NE(resolved.find(message_id), std::string::npos) << resolved;
  for (const auto& id : ids) {
    EXPECT_EQ(event_count(db, id, "payout.created"), 1) << id;
    EXPECT_EQ(event_count(db, id, "payout.completed"), 1) << id;
  }
  EXPECT_EQ(balance_of(db, organization.id, "test", "USDC"), "999980/0");
  EXPECT_EQ(ledger_mismatch(db), "");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM audit_log WHERE action = 'message.redriven' AND "
                      "resource_id = '" +
                      message_id + "'"),
            "1");
}

}  // namespace
}  // namespace payrail::testing
