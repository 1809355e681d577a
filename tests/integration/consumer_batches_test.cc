// How a worker's consumer makes its batches, against the real Kafka protocol (librdkafka's mock
// cluster, in this process). Under load (its last batch took more than one message, moments ago)
// it waits batch_wait_ms after a batch's first message for more, so that one transaction applies
// more of them; idle or lightly loaded (batches of one) a message waits for nothing. The wait
// here is long (1.5 s) so that which messages share a batch does not depend on this machine's
// speed; nothing is timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/kafka/consumer.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/store/outbox/outbox.h"
#include "tests/support/mock_cluster.h"
#include "topics/envelope.h"
#include "topics/registry.h"

namespace payrail::testing {
namespace {

using Batch = std::vector<std::string>;  // resource ids, in order

class ConsumerBatches : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ready());
    auto producer = infra::kafka::Producer::create({.brokers = cluster_.bootstrap()});
    ASSERT_TRUE(producer.ok());
    producer_ = std::move(*producer);
  }

  void TearDown() override {
    stop_ = true;
    release();
    if (runner_.joinable()) runner_.join();
  }

  void start_consumer() {
    runner_ = std::thread([this] {
      infra::kafka::ConsumerRunner consumer(
          {.brokers = cluster_.bootstrap(),
           .group_id = "consumer-batches-test",
           .topics = {topic_},
           .batch_wait_ms = 1500},
          [this](const std::vector<infra::kafka::Delivery>& deliveries) {
            Batch batch;
            for (const auto& delivery : deliveries) batch.push_back(delivery.envelope.resource_id);
            std::unique_lock lock(mutex_);
            batches_.push_back(batch);
            changed_.notify_all();
            // A batch holding "hold" is applied only once the test releases it.
            if (std::find(batch.begin(), batch.end(), "hold") != batch.end()) {
              changed_.wait(lock, [this] { return released_ || stop_; });
            }
            return std::vector<infra::kafka::HandlerOutcome>(deliveries.size(),
                                                             infra::kafka::HandlerOutcome::done);
          });
      (void)consumer.run(stop_);
    });
  }

  void produce(const std::vector<std::string>& resource_ids) {
    std::vector<infra::kafka::ProduceItem> items;
    for (const auto& id : resource_ids) {
      const auto message = infra::store::outbox::new_message(topics::kPayoutsRequested,
                                                             "org_batches", model::Mode::test, id);
      items.push_back({topic_, "one-partition", topics::encode(message)});
    }
    for (const auto& delivered : producer_->produce_batch(items)) {
      ASSERT_TRUE(delivered.acknowledged);
    }
  }

  // Waits (a bound, not a measure) until `count` batches were handed over; returns them all.
  std::vector<Batch> batches(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(30), [&] { return batches_.size() >= count; });
    return batches_;
  }

  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

  MockCluster cluster_;
  std::unique_ptr<infra::kafka::Producer> producer_;
  const std::string topic_ = topics::broker_topic_name(topics::kPayoutsRequested, "");
  std::thread runner_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Batch> batches_;
  bool released_ = false;
};

TEST_F(ConsumerBatches, OnlyALoadedConsumerWaitsForMoreAfterABatchsFirstMessage) {
  start_consumer();
  produce({"hold"});  // the consumer is busy with it while the next two arrive
  ASSERT_EQ(batches(1).size(), 1u);
  produce({"a"});
  produce({"b"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // both fetched meanwhile
  release();
  ASSERT_EQ(batches(2).size(), 2u);
  EXPECT_EQ(batches(2)[1], (Batch{"a", "b"}));
  // Loaded (the last batch took two, just now): the batch of "c" waits for "d".
  produce({"c"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  produce({"d"});
  ASSERT_EQ(batches(3).size(), 3u);
  EXPECT_EQ(batches(3)[2], (Batch{"c", "d"}));
  // Idle for longer than the wait: "e" is applied alone at once, before "f" arrives.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  produce({"e"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  produce({"f"});
  ASSERT_EQ(batches(5).size(), 5u);
  EXPECT_EQ(batches(5)[3], (Batch{"e"}));
  EXPECT_EQ(batches(5)[4], (Batch{"f"}));
}

}  // namespace
}  // namespace payrail::testing
