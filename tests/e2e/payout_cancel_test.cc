// Cancelling in each cancellable state (pending, screening, approved; pending_approval is in
// payouts_test.cc) and refusing to cancel while processing. Each state is held by stopping the
// worker that would move the payout on, then restarting it: the late message must change nothing.
#include <gtest/gtest.h>

#include "infra/adapters/sanctions/sanctions.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class PayoutCancel : public ::testing::Test {
 protected:
  // Creates answer after this wait when the screening worker is held back on purpose.
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_SCREENING_WAIT_MS", "1000"}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  void SetUp() override { org_ = stack_->create_organization(); }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  std::string create_and_expect(const std::string& status) {
    const auto response = create_payout(stack_->http(), org_.test_key, "k-" + status,
                                        payout_body("40", "USDC", "polygon", random_evm_address()));
    EXPECT_EQ(response.status, 201) << response.body;
    const std::string id = response.json()["id"].GetString();
    EXPECT_EQ(wait_for_status(stack_->http(), org_.test_key, id, {status}), status);
    return id;
  }
  HttpResult cancel(const std::string& id) {
    return stack_->http().post("/v1/payouts/" + id + "/cancel", "", with_key(org_.test_key));
  }
  void expect_cancelled_and_released(const std::string& id) {
    const auto response = cancel(id);
    ASSERT_EQ(response.status, 200) << response.body;
    EXPECT_STREQ(response.json()["status"].GetString(), "cancelled");
    EXPECT_EQ(balance_of(stack_->database(), org_.id, "test", "USDC"), "1000000/0");
  }
  // Waits until every outbox message about the payout was applied (consumed) by its worker.
  void wait_all_consumed(const std::string& id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const auto sql = "SELECT count(*) FROM outbox WHERE message_key = '" + id +
                     "' AND topic <> 'events' AND consumed_at IS NULL";
    while (stack_->database().scalar(sql) != "0" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(stack_->database().scalar(sql), "0");
  }
  std::string status_of(const std::string& id) {
    return stack_->database().scalar("SELECT status FROM payouts WHERE id = '" + id + "'");
  }

  static TestStack* stack_;
  TestOrganization org_;
};
TestStack* PayoutCancel::stack_ = nullptr;

TEST_F(PayoutCancel, WhilePending) {
  stack_->stop("screening");
  const auto id = create_and_expect("pending");
  expect_cancelled_and_released(id);
  stack_->start("screening");
  wait_all_consumed(id);
  EXPECT_EQ(status_of(id), "cancelled");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.cancelled"), 1);
}

TEST_F(PayoutCancel, WhileScreening) {
  // Without sanctions lists the screening worker starts screening but never decides.
  auto& screening = stack_->process("screening");
  screening.set_env("PAYRAIL_SANCTIONS_DIR", "/nonexistent-sanctions");
  stack_->start("screening");
  const auto id = create_and_expect("screening");
  expect_cancelled_and_released(id);
  screening.set_env("PAYRAIL_SANCTIONS_DIR",
                    infra::sanctions::find_default_sanctions_directory().value());
  stack_->start("screening");
  wait_all_consumed(id);
  EXPECT_EQ(status_of(id), "cancelled");
}

TEST_F(PayoutCancel, WhileApproved) {
  stack_->stop("execution");
  const auto id = create_and_expect("approved");
  expect_cancelled_and_released(id);
  stack_->start("execution");
  wait_all_consumed(id);
  EXPECT_EQ(status_of(id), "cancelled");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.processing"), 0);
}

TEST_F(PayoutCancel, NotWhileProcessing) {
  stack_->stop("settlement");
  const auto id = create_and_expect("processing");
  const auto refused = cancel(id);
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.error_code(), "payout_not_cancelable");
  EXPECT_EQ(balance_of(stack_->database(), org_.id, "test", "USDC"), "999960/40");
  stack_->start("settlement");
  EXPECT_EQ(wait_for_status(stack_->http(), org_.test_key, id, {"completed"}), "completed");
  EXPECT_EQ(balance_of(stack_->database(), org_.id, "test", "USDC"), "999960/0");
}

}  // namespace
}  // namespace payrail::testing
