// Metrics end to end: every process of a real stack serves Prometheus text, and one payout, one
// fiat payout and one collection each move the counters they should by exactly the expected
// amounts (HTTP, consumers, transitions, stages, screening, outbox, webhooks), in the processes
// that did the work.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "tests/support/collections.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/https_receiver.h"
#include "tests/support/metrics.h"
#include "tests/support/payouts.h"
#include "tests/support/receiver_suite.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

using Labels = std::map<std::string, std::string>;

const std::vector<std::string> kProcesses{"broker",     "api",    "screening", "execution",
                                          "settlement", "expiry", "webhooks"};

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return condition();
}

class Metrics : public ReceiverSuite<Metrics> {
 public:  // read by ReceiverSuite
  static StackOptions stack_options() {
    return {.env = {{"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"}}};
  }

 protected:
  static std::map<std::string, Scrape> scrape_all() {
    std::map<std::string, Scrape> scrapes;
    for (const auto& name : kProcesses) {
      scrapes.emplace(name, Scrape::from(stack_->metrics_url(name)));
    }
    return scrapes;
  }

  static double total(const std::map<std::string, Scrape>& scrapes, const std::string& name,
                      const Labels& labels) {
    double sum = 0;
    for (const auto& [process, scrape] : scrapes) sum += scrape.sum(name, labels);
    return sum;
  }

  // Each expectation: process, metric, labels, increase.
  struct Expected {
    std::string process;
    std::string metric;
    Labels labels;
    double increase;
  };

  // Waits until every expected increase since `before` is reached, then checks that each is
  // exactly the expected one. Returns the last scrape.
  static std::map<std::string, Scrape> expect_increases(const std::map<std::string, Scrape>& before,
                                                        const std::vector<Expected>& expected) {
    std::map<std::string, Scrape> after;
    const bool settled = eventually([&] {
      after = scrape_all();
      for (const auto& item : expected) {
        const auto grew = after.at(item.process).sum(item.metric, item.labels) -
                          before.at(item.process).sum(item.metric, item.labels);
        if (grew < item.increase) return false;
      }
      return true;
    });
    EXPECT_TRUE(settled);
    for (const auto& item : expected) {
      EXPECT_EQ(after.at(item.process).sum(item.metric, item.labels) -
                    before.at(item.process).sum(item.metric, item.labels),
                item.increase)
          << item.process << " " << item.metric;
    }
    return after;
  }
};

TEST_F(Metrics, EveryProcessServesItsOwnMetrics) {
  for (const auto& name : kProcesses) {
    const auto scrape = Scrape::from(stack_->metrics_url(name));
    const auto process = "payrail-" + name;
    EXPECT_EQ(scrape.samples("payrail_build_info", {{"process", process}}).size(), 1u) << name;
    EXPECT_GT(scrape.value("process_resident_memory_bytes").value_or(0), 1e6) << name;
    EXPECT_GT(scrape.value("process_open_fds").value_or(0), 2) << name;
    EXPECT_GT(scrape.value("process_start_time_seconds").value_or(0), 1.7e9) << name;
  }
  // Every worker reports its pool and its group membership; the API its pool size.
  const auto api = Scrape::from(stack_->metrics_url("api"));
  EXPECT_EQ(api.value("payrail_db_pool_max_connections", {{"pool", "payrail-api"}}), 8.0);
  const auto screening = Scrape::from(stack_->metrics_url("screening"));
  EXPECT_EQ(screening.sum("payrail_consumer_assigned_partitions",
                          {{"topic", "payouts.requested"}, {"group", "payrail-screening"}}),
            8.0);
  EXPECT_TRUE(eventually([&] {
    return Scrape::from(stack_->metrics_url("api"))
        .value("payrail_outbox_unpublished_messages", {{"topic", "payouts.requested"}})
        .has_value();
  }));
}

TEST_F(Metrics, APayoutMovesTheExpectedCounters) {
  const auto organization = stack_->create_organization();
  const auto endpoint = stack_->http().post(
      "/v1/webhooks", R"({"url":")" + receiver_->url() + R"(","events":["payout.completed"]})",
      with_key(organization.test_key));
  ASSERT_EQ(endpoint.status, 201) << endpoint.body;
  const auto before = scrape_all();

  const auto created = create_payout(stack_->http(), organization.test_key, "metrics-1",
                                     payout_body("1.5", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string payout_id = created.json()["id"].GetString();
  ASSERT_EQ(wait_for_status(stack_->http(), organization.test_key, payout_id, {"completed"}),
            "completed");
  ASSERT_TRUE(receiver_->wait_for_requests(1, std::chrono::seconds(30)));

  const auto transitions = "payrail_resource_transitions_total";
  const auto applied = "payrail_consumer_messages_total";
  const std::vector<Expected> expected{
      {"api",
       "payrail_http_requests_total",
       {{"method", "POST"}, {"route", "/v1/payouts"}, {"status", "201"}},
       1},
      {"api",
       "payrail_http_request_duration_seconds_count",
       {{"method", "POST"}, {"route", "/v1/payouts"}},
       1},
      {"api", "payrail_resources_created_total", {{"resource", "payout"}}, 1},
      {"api", transitions, {{"resource", "payout"}, {"status", "pending"}}, 1},
      {"screening", transitions, {{"resource", "payout"}, {"status", "screening"}}, 1},
      {"screening", transitions, {{"resource", "payout"}, {"status", "approved"}}, 1},
      {"execution", transitions, {{"resource", "payout"}, {"status", "processing"}}, 1},
      {"settlement", transitions, {{"resource", "payout"}, {"status", "completed"}}, 1},
      {"settlement",
       "payrail_resource_stage_seconds_count",
       {{"resource", "payout"}, {"status", "completed"}},
       1},
      {"screening",
       "payrail_screening_decisions_total",
       {{"resource", "payout"}, {"decision", "clear"}, {"reason", "none"}},
       1},
      {"screening",
       applied,
       {{"topic", "payouts.requested"}, {"group", "payrail-screening"}, {"outcome", "applied"}},
       1},
      {"execution",
       applied,
       {{"topic", "payouts.approved"}, {"group", "payrail-execution"}, {"outcome", "applied"}},
       1},
      {"settlement",
       applied,
       {{"topic", "payouts.broadcast"}, {"group", "payrail-settlement"}, {"outcome", "applied"}},
       1},
      // payout.completed only: events no endpoint subscribes to never reach the topic.
      {"webhooks",
       applied,
       {{"topic", "events"}, {"group", "payrail-webhooks"}, {"outcome", "applied"}},
       1},
      {"webhooks", "payrail_webhook_attempts_total", {{"result", "succeeded"}}, 1},
      {"webhooks", "payrail_webhook_deliveries_settled_total", {{"state", "succeeded"}}, 1},
  };
  const auto after = expect_increases(before, expected);
  // Any relay may publish any row: across the processes, each message exactly once.
  const Labels requested{{"topic", "payouts.requested"}};
  const Labels events{{"topic", "events"}};
  EXPECT_EQ(total(after, "payrail_outbox_published_total", requested) -
                total(before, "payrail_outbox_published_total", requested),
            1);
  EXPECT_EQ(total(after, "payrail_outbox_published_total", events) -
                total(before, "payrail_outbox_published_total", events),
            1);
  // The stage took some time, and no more than the test's own wait.
  const Labels completed{{"resource", "payout"}, {"status", "completed"}};
  const auto stage_seconds =
      after.at("settlement").sum("payrail_resource_stage_seconds_sum", completed) -
      before.at("settlement").sum("payrail_resource_stage_seconds_sum", completed);
  EXPECT_GT(stage_seconds, 0);
  EXPECT_LT(stage_seconds, 60);

  // The sanctions version the screening process reports is the one recorded on the decision.
  const auto version = stack_->database().scalar(
      "SELECT screening_list_version FROM payouts WHERE id = '" + payout_id + "'");
  ASSERT_FALSE(version.empty());
  EXPECT_EQ(after.at("screening").value("payrail_sanctions_list_info", {{"version", version}}),
            1.0);
  // Once everything is applied, nothing is left behind.
  EXPECT_TRUE(eventually([&] {
    const auto screening = Scrape::from(stack_->metrics_url("screening"));
    const auto api = Scrape::from(stack_->metrics_url("api"));
    return screening.sum("payrail_consumer_lag_messages", requested) == 0 &&
           api.value("payrail_outbox_unconsumed_messages", requested) == 0.0 &&
           api.value("payrail_outbox_oldest_unpublished_age_seconds", requested) == 0.0;
  }));
}

TEST_F(Metrics, AFiatPayoutMovesTheExpectedCounters) {
  const auto organization = stack_->create_organization();
  const auto before = scrape_all();
  const auto created = create_fiat_payout(stack_->http(), organization.test_key, "metrics-fiat-1",
                                          fiat_payout_body("100.00", mexico_case(), "Ana Souza"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string payout_id = created.json()["id"].GetString();
  ASSERT_EQ(wait_for_fiat_status(stack_->http(), organization.test_key, payout_id, {"completed"}),
            "completed");

  const auto transitions = "payrail_resource_transitions_total";
  const auto applied = "payrail_consumer_messages_total";
  const auto stage = "payrail_resource_stage_seconds_count";
  const Labels fiat{{"resource", "fiat_payout"}};
  const std::vector<Expected> expected{
      {"api",
       "payrail_http_requests_total",
       {{"method", "POST"}, {"route", "/v1/fiat-payouts"}, {"status", "201"}},
       1},
      {"api", "payrail_resources_created_total", fiat, 1},
      {"api", transitions, {{"resource", "fiat_payout"}, {"status", "pending"}}, 1},
      {"screening", transitions, {{"resource", "fiat_payout"}, {"status", "screening"}}, 1},
      {"screening", transitions, {{"resource", "fiat_payout"}, {"status", "processing"}}, 1},
      {"screening", stage, {{"resource", "fiat_payout"}, {"status", "processing"}}, 1},
      {"settlement", transitions, {{"resource", "fiat_payout"}, {"status", "completed"}}, 1},
      {"settlement", stage, {{"resource", "fiat_payout"}, {"status", "completed"}}, 1},
      {"screening",
       "payrail_screening_decisions_total",
       {{"resource", "fiat_payout"}, {"decision", "clear"}, {"reason", "none"}},
       1},
      {"screening",
       applied,
       {{"topic", "fiat_payouts.requested"},
        {"group", "payrail-screening"},
        {"outcome", "applied"}},
       1},
      {"execution",
       applied,
       {{"topic", "fiat_payouts.approved"}, {"group", "payrail-execution"}, {"outcome", "applied"}},
       1},
      {"settlement",
       applied,
       {{"topic", "fiat_payouts.sent"}, {"group", "payrail-settlement"}, {"outcome", "applied"}},
       1},
      {"execution",
       "payrail_consumer_apply_duration_seconds_count",
       {{"topic", "fiat_payouts.approved"}, {"group", "payrail-execution"}},
       1},
  };
  const auto after = expect_increases(before, expected);
  // No payout moved: the fiat payout is counted under its own resource type only.
  EXPECT_EQ(total(after, "payrail_resources_created_total", {{"resource", "payout"}}) -
                total(before, "payrail_resources_created_total", {{"resource", "payout"}}),
            0);
  const Labels requested{{"topic", "fiat_payouts.requested"}};
  EXPECT_EQ(total(after, "payrail_outbox_published_total", requested) -
                total(before, "payrail_outbox_published_total", requested),
            1);
  // Every fiat topic is measured by its consumer, and nothing is left behind.
  EXPECT_TRUE(eventually([&] {
    const auto execution = Scrape::from(stack_->metrics_url("execution"));
    const auto api = Scrape::from(stack_->metrics_url("api"));
    const Labels approved{{"topic", "fiat_payouts.approved"}, {"group", "payrail-execution"}};
    return execution.sum("payrail_consumer_assigned_partitions", approved) == 8.0 &&
           execution.samples("payrail_consumer_lag_messages", approved).size() == 1u &&
           execution.sum("payrail_consumer_lag_messages", approved) == 0 &&
           api.value("payrail_outbox_unconsumed_messages", requested) == 0.0;
  }));
}

TEST_F(Metrics, ACollectionMovesTheExpectedCounters) {
  const auto organization = stack_->create_organization();
  const auto before = scrape_all();
  const auto created =
      create_collection(stack_->http(), organization.test_key, "metrics-collection-1",
                        collection_body("100.00", "CAD", "interac_etransfer"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"].GetString();
  const auto received = collection_helper(stack_->http(), organization.test_key, id, "receive");
  ASSERT_EQ(received.status, 202) << received.body;
  ASSERT_EQ(wait_for_collection(stack_->http(), organization.test_key, id, {"settled"}), "settled");

  const auto transitions = "payrail_resource_transitions_total";
  const auto applied = "payrail_consumer_messages_total";
  const std::vector<Expected> expected{
      {"api",
       "payrail_http_requests_total",
       {{"method", "POST"}, {"route", "/v1/collections"}, {"status", "201"}},
       1},
      {"api", "payrail_resources_created_total", {{"resource", "collection"}}, 1},
      {"api", transitions, {{"resource", "collection"}, {"status", "awaiting_payment"}}, 1},
      {"settlement", transitions, {{"resource", "collection"}, {"status", "received"}}, 1},
      {"settlement", transitions, {{"resource", "collection"}, {"status", "settled"}}, 1},
      {"settlement",
       "payrail_resource_stage_seconds_count",
       {{"resource", "collection"}, {"status", "settled"}},
       1},
      {"settlement",
       applied,
       {{"topic", "collections.provider_events"},
        {"group", "payrail-settlement"},
        {"outcome", "applied"}},
       1},
      {"settlement",
       applied,
       {{"topic", "collections.received"}, {"group", "payrail-settlement"}, {"outcome", "applied"}},
       1},
  };
  expect_increases(before, expected);
}

TEST_F(Metrics, LabelsCarryNoIdentifiers) {
  const auto organization = stack_->create_organization();
  const auto response =
      stack_->http().get("/v1/payouts/po_doesnotexist", with_key(organization.test_key));
  EXPECT_EQ(response.status, 404);
  for (const auto& [process, scrape] : scrape_all()) {
    EXPECT_EQ(scrape.text().find(organization.id), std::string::npos) << process;
    EXPECT_EQ(scrape.text().find("po_doesnotexist"), std::string::npos) << process;
  }
  const auto api = Scrape::from(stack_->metrics_url("api"));
  EXPECT_GE(
      api.sum("payrail_http_requests_total", {{"route", "/v1/payouts/{id}"}, {"status", "404"}}),
      1);
}

}  // namespace
}  // namespace payrail::testing
