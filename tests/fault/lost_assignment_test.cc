// A consumer whose assignment is lost commits none of its old positions: here the broker (the
// embedded broker, a real process) is killed and started again with none of its data. The
// member's session times out, librdkafka revokes its partitions as lost and unassigns them, and
// by default commits the positions it had stored on them. The new broker would take those
// positions as the group's, and its new log (offsets from 0 again) would be read from there: the
// messages below them were skipped, as `payrail republish` found after a broker lost its data.
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <signal.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/kafka/consumer.h"
#include "infra/plumbing/kafka/group_positions.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/store/outbox/outbox.h"
#include "tests/support/process.h"
#include "topics/envelope.h"
#include "topics/registry.h"

namespace payrail::testing {
namespace {

constexpr auto kGroup = "lost-assignment-test";
constexpr auto kWait = std::chrono::seconds(30);

// How many times this process's member of kGroup was given partitions.
double assignments() {
  for (const auto& family : infra::metrics::registry().Collect()) {
    if (family.name != "payrail_consumer_rebalances_total") continue;
    for (const auto& metric : family.metric) {
      bool group = false;
      bool assigned = false;
      for (const auto& label : metric.label) {
        group = group || (label.name == "group" && label.value == kGroup);
        assigned = assigned || (label.name == "kind" && label.value == "assigned");
      }
      if (group && assigned) return metric.counter.value;
    }
  }
  return 0;
}

template <typename Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

class LostAssignment : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_.start();
    ASSERT_TRUE(broker_.wait_for_log("payrail-broker ready", kWait)) << broker_.log();
  }

  void TearDown() override {
    stop_ = true;
    if (runner_.joinable()) runner_.join();
    broker_.stop();
  }

  void start_consumer() {
    runner_ = std::thread([this] {
      infra::kafka::ConsumerRunner consumer(
          {.brokers = brokers_, .group_id = kGroup, .topics = {topic_}, .session_timeout_ms = 3000},
          [this](const std::vector<infra::kafka::Delivery>& deliveries) {
            std::lock_guard lock(mutex_);
            for (const auto& delivery : deliveries)
              applied_.push_back(delivery.envelope.resource_id);
            return std::vector<infra::kafka::HandlerOutcome>(deliveries.size(),
                                                             infra::kafka::HandlerOutcome::done);
          });
      (void)consumer.run(stop_);
    });
  }

  // Every message to one partition, with a new producer: the broker may have restarted.
  void produce(const std::vector<std::string>& resource_ids) {
    auto producer = infra::kafka::Producer::create({.brokers = brokers_});
    ASSERT_TRUE(producer.ok());
    std::vector<infra::kafka::ProduceItem> items;
    for (const auto& id : resource_ids) {
      const auto message = infra::store::outbox::new_message(topics::kPayoutsRequested, "org_lost",
                                                             model::Mode::test, id);
      items.push_back({topic_, "one-partition", topics::encode(message)});
    }
    for (const auto& delivered : (*producer)->produce_batch(items)) {
      ASSERT_TRUE(delivered.acknowledged);
    }
  }

  std::vector<std::string> applied() {
    std::lock_guard lock(mutex_);
    return applied_;
  }

  // The group's committed offsets on the topic's partitions, summed; -1 for each with none.
  long committed() {
    infra::kafka::GroupPositions positions(brokers_, "");
    const auto all = positions.of(topics::kPayoutsRequested, kGroup, std::chrono::seconds(5));
    if (!all.ok()) return -1000;
    long sum = 0;
    for (const auto& partition : *all) sum += partition.committed;
    return sum;
  }

  const int port_ = free_port();
  const std::string brokers_ = "127.0.0.1:" + std::to_string(port_);
  ChildProcess broker_{
      "lost-assignment-broker",
      bin_path("infra/payrail-broker"),
      {{"PAYRAIL_KAFKA_PORT", std::to_string(port_)}, {"PAYRAIL_METRICS_PORT", "0"}}};
  const std::string topic_ = topics::broker_topic_name(topics::kPayoutsRequested, "");
  const long partitions_ = topics::kPayoutsRequested.partitions;
  std::atomic<bool> stop_{false};
  std::thread runner_;
  std::mutex mutex_;
  std::vector<std::string> applied_;
};

TEST_F(LostAssignment, AMemberCommitsNoneOfItsPositionsOnPartitionsItLost) {
  start_consumer();
  produce({"a", "b", "c"});
  ASSERT_TRUE(eventually([&] { return applied().size() == 3; }));
  // Committed: 3 on the one partition, none (-1) on each of the others.
  ASSERT_TRUE(eventually([&] { return committed() == 3 - (partitions_ - 1); }));

  broker_.stop(SIGKILL);
  broker_.start();
  ASSERT_TRUE(broker_.wait_for_log("payrail-broker ready", kWait)) << broker_.log();
  // The member's session times out on the new broker (which knows no group), it loses its
  // partitions and joins again.
  ASSERT_TRUE(eventually([] { return assignments() >= 2; }));
  EXPECT_EQ(committed(), -partitions_) << "the new broker was given positions of the old one";

  // And it reads the new log from its start.
  produce({"d", "e", "f", "g"});
  EXPECT_TRUE(eventually([&] { return applied().size() == 7; }));
  EXPECT_EQ(applied(), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g"}));
}

}  // namespace
}  // namespace payrail::testing
