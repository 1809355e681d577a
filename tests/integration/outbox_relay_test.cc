// The outbox relay's claims against a real database and the real Kafka protocol (librdkafka's mock
// cluster, in this process). A relay claims the rows its process committed by their ids, so it
// does not walk the dead index entries every publication leaves until VACUUM, however long ago
// their transaction began; a rolled-back row is never claimed. The claim of every due row finds
// the rest (rows whose ids never reached a relay): the running relay makes it on its own, and
// repeats it at once while it finds full batches, so a backlog of such rows drains completely.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "infra/outbox/outbox.h"
#include "infra/outbox/relay.h"
#include "infra/pg/pool.h"
#include "tests/support/database.h"
#include "topics/registry.h"

namespace payrail::testing {
namespace {

using Claim = infra::outbox::Relay::Claim;

// A one-broker mock cluster with the topic the tests publish to.
class MockCluster {
 public:
  MockCluster() {
    char error_text[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", error_text, sizeof error_text);
    handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error_text, sizeof error_text);
    cluster_ = handle_ ? rd_kafka_mock_cluster_new(handle_, 1) : nullptr;
    if (cluster_) {
      const auto name = topics::broker_topic_name(topics::kPayoutsRequested, "");
      rd_kafka_mock_topic_create(cluster_, name.c_str(), topics::kPayoutsRequested.partitions, 1);
    }
  }
  ~MockCluster() {
    if (cluster_) rd_kafka_mock_cluster_destroy(cluster_);
    if (handle_) rd_kafka_destroy(handle_);
  }
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  bool ready() const { return cluster_ != nullptr; }
  std::string bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }

 private:
  rd_kafka_t* handle_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

class OutboxRelay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 4});
    cluster_ = new MockCluster();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    delete pool_;
    delete database_;
  }

  void SetUp() override {
    ASSERT_TRUE(cluster_->ready());
    auto producer = infra::kafka::Producer::create({.brokers = cluster_->bootstrap()});
    ASSERT_TRUE(producer.ok());
    producer_ = std::move(*producer);
    // Rows other tests left unpublished would be claimed with this test's rows.
    database_->scalar("UPDATE outbox SET published_at = now() WHERE published_at IS NULL");
    (void)infra::outbox::take_committed(1000000);
  }

  // Enqueues `count` messages in one committed transaction, each due `due_ms_ago` milliseconds
  // ago (as a row whose transaction began that long before it committed would be). Returns their
  // message ids, quoted for SQL.
  static std::string enqueue(int count, long due_ms_ago) {
    std::string ids;
    const auto enqueued = pool_->transact([&](pqxx::work& tx) -> model::Status {
      for (int i = 0; i < count; ++i) {
        const auto id = infra::outbox::enqueue(tx, topics::kPayoutsRequested, "org_relay",
                                               model::Mode::test, "po_relay_" + std::to_string(i));
        ids += (ids.empty() ? "'" : ",'") + id + "'";
      }
      tx.exec("UPDATE outbox SET next_attempt_at = now() - " + std::to_string(due_ms_ago) +
              " * interval '1 millisecond' WHERE message_id IN (" + ids + ")");
      return model::ok_status();
    });
    EXPECT_TRUE(enqueued.ok());
    return ids;
  }

  // The same rows as a process that died before its relay took their ids leaves them.
  static std::string enqueue_unannounced(int count, long due_ms_ago) {
    const auto ids = enqueue(count, due_ms_ago);
    (void)infra::outbox::take_committed(1000000);
    return ids;
  }

  static int published(const std::string& ids) {
    return std::stoi(
        database_->scalar("SELECT count(*) FROM outbox WHERE published_at IS NOT "
                          "NULL AND message_id IN (" +
                          ids + ")"));
  }

  // One claim by a fresh relay of this process: the rows it published (0 when the claim failed,
  // which the caller's expectation then reports).
  std::size_t publish(Claim claim) {
    infra::outbox::Relay relay(*pool_, *producer_, {});
    auto count = relay.publish_once(claim);
    EXPECT_TRUE(count.ok());
    return count.ok() ? *count : 0;
  }

  // Waits (up to 20 s, a bound, not a measure) until `count` of the rows are published.
  static void wait_until_published(const std::string& ids, int count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (published(ids) < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  static TestDatabase* database_;
  static infra::pg::Pool* pool_;
  static MockCluster* cluster_;
  std::unique_ptr<infra::kafka::Producer> producer_;
};

TestDatabase* OutboxRelay::database_ = nullptr;
infra::pg::Pool* OutboxRelay::pool_ = nullptr;
MockCluster* OutboxRelay::cluster_ = nullptr;

TEST_F(OutboxRelay, TheRelayClaimsTheRowsItsProcessCommittedByTheirIds) {
  const auto ids = enqueue(3, 60000);
  EXPECT_EQ(publish(Claim::committed), 3u);
  EXPECT_EQ(published(ids), 3);
  EXPECT_FALSE(infra::outbox::committed_waiting());
}

TEST_F(OutboxRelay, ARolledBackRowIsNeverClaimed) {
  const auto rolled_back = pool_->transact([&](pqxx::work& tx) -> model::Status {
    infra::outbox::enqueue(tx, topics::kPayoutsRequested, "org_relay", model::Mode::test,
                           "po_relay_rolled_back");
    return model::Error::make(model::ErrorCode::internal_error, "rolled back on purpose");
  });
  EXPECT_FALSE(rolled_back.ok());
  EXPECT_FALSE(infra::outbox::committed_waiting());
  EXPECT_EQ(publish(Claim::all_due), 0u);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM outbox WHERE message_key = "
                              "'po_relay_rolled_back'"),
            "0");
}

TEST_F(OutboxRelay, OnlyTheClaimOfEveryDueRowFindsRowsWhoseIdsNeverReachedARelay) {
  const auto ids = enqueue_unannounced(2, 60000);
  EXPECT_EQ(publish(Claim::committed), 0u);
  EXPECT_EQ(published(ids), 0);
  EXPECT_EQ(publish(Claim::all_due), 2u);
  EXPECT_EQ(published(ids), 2);
}

TEST_F(OutboxRelay, NeitherClaimTakesARowNotYetDue) {
  const auto ids = enqueue(1, -60000);
  EXPECT_EQ(publish(Claim::committed), 0u);
  EXPECT_EQ(publish(Claim::all_due), 0u);
  EXPECT_EQ(published(ids), 0);
}

// 200 rows due long ago and batches of two: the running relay claims every due row again at once
// while its batches come back full, so the backlog drains in about a second, where two rows per
// second of claims of every due row would take 100 s.
TEST_F(OutboxRelay, TheRunningRelayDrainsABacklogOfRowsDueLongAgo) {
  const auto ids = enqueue_unannounced(200, 60000);
  infra::outbox::Relay relay(*pool_, *producer_, {.batch_max = 2});
  relay.start();
  wait_until_published(ids, 200);
  relay.stop();
  EXPECT_EQ(published(ids), 200);
}

// A row whose id never reached the relay, committed after the relay's first claim of every due row:
// its next claim of every due row (once a second) publishes it without being woken.
TEST_F(OutboxRelay, TheRunningRelayFindsARowWhoseIdNeverReachedIt) {
  infra::outbox::Relay relay(*pool_, *producer_, {});
  relay.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto ids = enqueue_unannounced(1, 60000);
  wait_until_published(ids, 1);
  relay.stop();
  EXPECT_EQ(published(ids), 1);
}

}  // namespace
}  // namespace payrail::testing
