// Webhook delivery under faults: kill -9 of the delivery worker in the middle of an attempt (the
// lease expires, the delivery resumes, nothing is lost, one success), and two worker processes
// sharing the work without ever sending one delivery twice.
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/https_receiver.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr auto kDeliveryTimeout = std::chrono::seconds(60);

bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = kDeliveryTimeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return condition();
}

std::int64_t seconds_of(std::chrono::system_clock::time_point point) {
  return std::chrono::duration_cast<std::chrono::seconds>(point.time_since_epoch()).count();
}

class WebhookRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    receiver_ = new HttpsReceiver();
    // Lease = 2 x 3 s timeout + 5 s margin = 11 s; two senders per process.
    stack_ = new TestStack({.env = {{"PAYRAIL_WEBHOOK_CA_FILE", receiver_->certificate_path()},
                                    {"PAYRAIL_WEBHOOK_RETRY_SCHEDULE", "300ms,600ms,900ms"},
                                    {"PAYRAIL_WEBHOOK_TIMEOUT_MS", "3000"},
                                    {"PAYRAIL_WEBHOOK_CONCURRENCY", "2"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete receiver_;
  }

  static std::pair<std::string, std::string> create_endpoint(const std::string& key,
                                                             const std::string& path,
                                                             const std::string& events) {
    const auto response = stack_->http().post(
        "/v1/webhooks", R"({"url":")" + receiver_->url(path) + R"(","events":)" + events + "}",
        with_key(key));
    EXPECT_EQ(response.status, 201) << response.body;
    auto json = response.json();
    return {json["id"].GetString(), json["secret"].GetString()};
  }

  static void create_payout(const std::string& key) {
    const auto response = stack_->http().post(
        "/v1/payouts",
        R"({"amount":"5.00","currency":"USDC","destination":{"network":"base","address":"0x)" +
            infra::crypto::hex_encode(infra::crypto::random_bytes(20)) + R"("}})",
        with_key(key, {{"Idempotency-Key", infra::crypto::random_base62(16)}}));
    ASSERT_EQ(response.status, 201) << response.body;
  }

  static std::string scalar(const std::string& sql) { return stack_->database().scalar(sql); }

  static TestStack* stack_;
  static HttpsReceiver* receiver_;
};
TestStack* WebhookRecovery::stack_ = nullptr;
HttpsReceiver* WebhookRecovery::receiver_ = nullptr;

TEST_F(WebhookRecovery, KillNineMidAttemptResumesWithOneSuccess) {
  const auto organization = stack_->create_organization();
  receiver_->plan({{500, 0}, {200, 2500}}, "/crash");  // the second answer comes too late
  const auto [endpoint_id, secret] =
      create_endpoint(organization.test_key, "/crash", R"(["payout.created"])");
  const auto [rest_id, rest_secret] = create_endpoint(
      organization.test_key, "/crash-rest", R"(["payout.processing","payout.completed"])");
  create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(2, kDeliveryTimeout, "/crash"));
  stack_->stop("webhooks", SIGKILL);  // the second attempt is in flight
  const auto killed_at = std::chrono::system_clock::now();
  const auto delivery =
      "(SELECT id FROM webhook_deliveries WHERE endpoint_id = '" + endpoint_id + "')";
  EXPECT_EQ(scalar("SELECT status FROM webhook_deliveries WHERE id = " + delivery), "pending");
  EXPECT_NE(scalar("SELECT locked_by FROM webhook_deliveries WHERE id = " + delivery), "");
  EXPECT_EQ(
      scalar("SELECT left(error, 19) FROM webhook_attempts WHERE number = 2 AND delivery_id = " +
             delivery),
      "no outcome recorded");

  stack_->start("webhooks");
  ASSERT_TRUE(eventually([&] {
    return scalar(
               "SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded' AND "
               "endpoint_id IN ('" +
               endpoint_id + "', '" + rest_id + "')") == "3";
  }));
  const auto requests = receiver_->requests_for("/crash");
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& request : requests) {
    EXPECT_EQ(request.header("service-event-id"), requests[0].header("service-event-id"));
    EXPECT_EQ(request.body, requests[0].body);
    EXPECT_TRUE(verify_webhook_signature(request.header("service-signature"), secret, request.body,
                                         seconds_of(request.received_at)));
  }
  EXPECT_GT(requests[2].received_at, killed_at);
  // Recorded: 500, the cut attempt (no outcome), 200. One success, and no attempt after it.
  EXPECT_EQ(scalar("SELECT string_agg(coalesce(status_code::text, 'none'), ',' ORDER BY number) "
                   "FROM webhook_attempts WHERE delivery_id = " +
                   delivery),
            "500,none,200");
  EXPECT_EQ(scalar("SELECT attempt_count FROM webhook_deliveries WHERE id = " + delivery), "3");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(receiver_->requests_for("/crash").size(), 3u);
  // Nothing lost: processing and completed reached the other endpoint exactly once each.
  const auto rest = receiver_->requests_for("/crash-rest");
  std::set<std::string> rest_events;
  for (const auto& request : rest) rest_events.insert(request.header("service-event-id"));
  EXPECT_EQ(rest_events.size(), 2u);
  EXPECT_EQ(scalar("SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON "
                   "d.id = a.delivery_id WHERE d.endpoint_id = '" +
                   rest_id + "' AND a.status_code = 200"),
            "2");
}

// Two processes claim from the same table: every event arrives exactly once, and both worked.
TEST_F(WebhookRecovery, TwoProcessesNeverSendOneDeliveryTwice) {
  ChildProcess second("webhooks-2", bin_path("workers/payrail-webhooks"), stack_->env());
  second.start();
  ASSERT_TRUE(second.wait_for_log("webhooks.delivery_loop_started", std::chrono::seconds(30)))
      << second.log();
  const auto organization = stack_->create_organization();
  receiver_->plan(std::vector<PlannedResponse>(400, PlannedResponse{200, 60}), "/pair");
  const auto endpoint_id =
      create_endpoint(organization.test_key, "/pair",
                      R"(["payout.created","payout.processing","payout.completed"])")
          .first;
  constexpr int kPayouts = 30;
  for (int i = 0; i < kPayouts; ++i) create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(3 * kPayouts, kDeliveryTimeout, "/pair"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto requests = receiver_->requests_for("/pair");
  std::map<std::string, int> per_event;
  for (const auto& request : requests) ++per_event[request.header("service-event-id")];
  EXPECT_EQ(per_event.size(), static_cast<std::size_t>(3 * kPayouts));
  for (const auto& [event_id, count] : per_event) EXPECT_EQ(count, 1) << event_id;
  EXPECT_EQ(requests.size(), static_cast<std::size_t>(3 * kPayouts));
  const auto attempts_in = [&](const std::string& log) {  // this endpoint's attempt lines
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      count += line.find("webhooks.attempt") != std::string::npos &&
               line.find(endpoint_id) != std::string::npos;
    }
    return count;
  };
  const auto by_second = attempts_in(second.log());
  const auto by_first = attempts_in(stack_->process("webhooks").log());
  EXPECT_GT(by_second, 0u);
  EXPECT_GT(by_first, 0u);
  EXPECT_EQ(by_first + by_second, static_cast<std::size_t>(3 * kPayouts));
  second.stop();
}

}  // namespace
}  // namespace payrail::testing
