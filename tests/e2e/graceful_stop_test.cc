// Stopping a process never waits for a slow partner and never loses work: a webhook send in
// flight when payrail-webhooks gets SIGTERM is cut short after the 2 s grace, recorded as an
// `interrupted` attempt, the process leaves its consumer group and exits by itself, and the
// delivery is sent again once a webhooks process runs.
#include <gtest/gtest.h>

#include <thread>

#include "tests/support/https_receiver.h"
#include "tests/support/payouts.h"
#include "tests/support/receiver_suite.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class GracefulStop : public ReceiverSuite<GracefulStop> {
 public:  // read by ReceiverSuite
  static StackOptions stack_options() {
    return {.workers = {"webhooks"},
            .env = {{"PAYRAIL_WEBHOOK_RETRY_SCHEDULE", "500ms,1s"},
                    {"PAYRAIL_WEBHOOK_TIMEOUT_MS", "15000"},
                    // No screening here: creates answer at once, pending.
                    {"PAYRAIL_SCREENING_WAIT_MS", "0"}}};
  }
};

TEST_F(GracefulStop, AWebhookSendInFlightIsCutShortAndRetried) {
  const auto organization = stack_->create_organization();
  // The first request is answered only after 8 s: far longer than the stop grace.
  receiver_->plan({{.status = 200, .delay_ms = 8000}}, "/slow");
  const auto endpoint = stack_->http().post(
      "/v1/webhooks", R"({"url":")" + receiver_->url("/slow") + R"(","events":["payout.created"]})",
      with_key(organization.test_key));
  ASSERT_EQ(endpoint.status, 201) << endpoint.body;
  const auto created = create_payout(stack_->http(), organization.test_key, "stop-1",
                                     payout_body("1", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_TRUE(receiver_->wait_for_requests(1, std::chrono::seconds(30), "/slow"));

  auto& webhooks = stack_->process("webhooks");
  stack_->stop("webhooks");  // SIGTERM; SIGKILL only after 15 s
  const auto log = webhooks.log();
  EXPECT_NE(log.find("webhooks.interrupting_sends"), std::string::npos) << log;
  EXPECT_NE(log.find("consumer.stopped"), std::string::npos) << "killed, not stopped:\n" << log;
  const auto& db = stack_->database();
  const auto delivery =
      "(SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id "
      "WHERE e.org_id = '" +
      organization.id + "')";
  EXPECT_EQ(db.scalar("SELECT error FROM webhook_attempts WHERE delivery_id = " + delivery +
                      " AND number = 1"),
            "interrupted: the delivery worker was stopping; the attempt is retried");
  EXPECT_EQ(db.scalar("SELECT status FROM webhook_deliveries WHERE id = " + delivery), "pending");

  stack_->start("webhooks");
  ASSERT_TRUE(receiver_->wait_for_requests(2, std::chrono::seconds(30), "/slow"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (db.scalar("SELECT status FROM webhook_deliveries WHERE id = " + delivery) != "succeeded" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(db.scalar("SELECT status FROM webhook_deliveries WHERE id = " + delivery), "succeeded");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM webhook_attempts WHERE delivery_id = " + delivery),
            "2");
}

}  // namespace
}  // namespace payrail::testing
