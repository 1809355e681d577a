// The outbox relay against a real database and the real Kafka protocol (librdkafka's mock cluster,
// in this process). The rows a process commits while it has a relay are leased to that relay from
// their insert, so no other relay's claim takes them, and it publishes them from memory right
// after the commit (no claim statement, no walk of the dead index entries every publication
// leaves until VACUUM); a rolled-back row never reaches it. The claim of every due row finds the
// rest (rows inserted due at once, and leased rows whose relay died, once the lease ran out): the
// running relay makes it on its own, and repeats it at once while it finds full batches, so a
// backlog of such rows drains completely.
#include <gtest/gtest.h>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "infra/plumbing/kafka/admin.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/outbox/relay.h"
#include "tests/support/database.h"
#include "tests/support/mock_cluster.h"
#include "tests/support/private_cluster.h"
#include "topics/registry.h"

namespace payrail::testing {
namespace {

using Source = infra::store::outbox::Relay::Source;
using Recording = infra::store::outbox::Relay::Recording;

class OutboxRelay : public ::testing::Test {
 protected:
  // A cluster of the suite's own: whether a scan may mark an index entry dead depends on the
  // oldest transaction of the whole cluster (a snapshot's xmin is cluster-wide), and on the shared
  // test cluster another test binary's long transaction kept every mark away for a minute.
  static void SetUpTestSuite() {
    cluster_of_our_own_ = new PrivateCluster();
    database_ = new TestDatabase(cluster_of_our_own_->url());
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 4});
    cluster_ = new MockCluster();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    delete pool_;
    delete database_;
    delete cluster_of_our_own_;
  }

  void SetUp() override {
    ASSERT_TRUE(cluster_->ready());
    auto producer = infra::kafka::Producer::create({.brokers = cluster_->bootstrap()});
    ASSERT_TRUE(producer.ok());
    producer_ = std::move(*producer);
    // Rows other tests left unpublished would be claimed with this test's rows.
    database_->scalar("UPDATE outbox SET published_at = now() WHERE published_at IS NULL");
    (void)infra::store::outbox::take_committed(1000000);
  }

  // Enqueues `count` messages in one committed transaction. Returns their message ids, quoted for
  // SQL.
  static std::string enqueue(int count) {
    std::string ids;
    const auto enqueued = pool_->transact([&](pqxx::work& tx) -> model::Status {
      for (int i = 0; i < count; ++i) {
        const auto id =
            infra::store::outbox::enqueue(tx, topics::kPayoutsRequested, "org_relay",
                                          model::Mode::test, "po_relay_" + std::to_string(i));
        ids += (ids.empty() ? "'" : ",'") + id + "'";
      }
      return model::ok_status();
    });
    EXPECT_TRUE(enqueued.ok());
    return ids;
  }

  // Rows as a process without a relay leaves them (due at once), made due `due_ms_ago`.
  static std::string enqueue_without_relay(int count, long due_ms_ago) {
    const auto ids = enqueue(count);
    make_due(ids, due_ms_ago);
    return ids;
  }

  static void make_due(const std::string& ids, long due_ms_ago) {
    database_->scalar("UPDATE outbox SET next_attempt_at = now() - " + std::to_string(due_ms_ago) +
                      " * interval '1 millisecond' WHERE message_id IN (" + ids + ")");
  }

  static int published(const std::string& ids) {
    return std::stoi(
        database_->scalar("SELECT count(*) FROM outbox WHERE published_at IS NOT "
                          "NULL AND message_id IN (" +
                          ids + ")"));
  }

  // Seconds until the rows' earliest next attempt (negative: due).
  static double seconds_until_due(const std::string& ids) {
    return std::stod(
        database_->scalar("SELECT extract(epoch FROM min(next_attempt_at) - now()) FROM outbox "
                          "WHERE message_id IN (" +
                          ids + ")"));
  }

  // One batch of `relay` (by default a fresh one of this process), its publications recorded: the
  // rows it published (0 when it failed, which the caller's expectation then reports).
  std::size_t publish(Source source, infra::store::outbox::Relay* relay = nullptr) {
    std::optional<infra::store::outbox::Relay> fresh;
    if (!relay) relay = &fresh.emplace(*pool_, *producer_, infra::store::outbox::RelayOptions{});
    auto count = relay->publish_once(source);
    EXPECT_TRUE(count.ok());
    EXPECT_TRUE(relay->record_publications(Recording::all).ok());
    return count.ok() ? *count : 0;
  }

  static void mark_consumed(const std::string& message_id) {
    const auto marked = pool_->transact([&](pqxx::work& tx) -> model::Status {
      infra::store::outbox::mark_consumed(tx, message_id);
      return model::ok_status();
    });
    EXPECT_TRUE(marked.ok());
  }

  // Published and recorded (with where the broker put them), unconsumed, and aged an hour: old
  // enough to be re-driven by age alone.
  std::string publish_and_age(int count) {
    infra::store::outbox::Relay own(*pool_, *producer_, {});
    const auto ids = enqueue(count);
    EXPECT_EQ(publish(Source::committed, &own), static_cast<std::size_t>(count));
    database_->scalar(
        "UPDATE outbox SET published_at = now() - interval '1 hour' "
        "WHERE message_id IN (" +
        ids + ")");
    return ids;
  }

  static int with_position(const std::string& ids) {
    return std::stoi(database_->scalar(
        "SELECT count(*) FROM outbox WHERE published_partition IS NOT NULL AND published_offset "
        ">= 0 AND message_id IN (" +
        ids + ")"));
  }

  static std::string publish_attempts(const std::string& message_id) {
    return database_->scalar("SELECT publish_attempts FROM outbox WHERE message_id = '" +
                             message_id + "'");
  }

  // Waits (up to 20 s, a bound, not a measure) until `count` of the rows are published.
  static void wait_until_published(const std::string& ids, int count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (published(ids) < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  static PrivateCluster* cluster_of_our_own_;
  static TestDatabase* database_;
  static infra::pg::Pool* pool_;
  static MockCluster* cluster_;
  std::unique_ptr<infra::kafka::Producer> producer_;
};

PrivateCluster* OutboxRelay::cluster_of_our_own_ = nullptr;
TestDatabase* OutboxRelay::database_ = nullptr;
infra::pg::Pool* OutboxRelay::pool_ = nullptr;
MockCluster* OutboxRelay::cluster_ = nullptr;

TEST_F(OutboxRelay, RowsAProcessCommitsAreLeasedToItsRelayWhichPublishesThemFromMemory) {
  infra::store::outbox::Relay own(*pool_, *producer_, {});
  const auto ids = enqueue(3);
  EXPECT_GT(seconds_until_due(ids), 10.0);
  EXPECT_EQ(publish(Source::all_due), 0u);  // another relay's claim passes them over
  EXPECT_EQ(published(ids), 0);
  EXPECT_EQ(publish(Source::committed, &own), 3u);
  EXPECT_EQ(published(ids), 3);
  EXPECT_FALSE(infra::store::outbox::committed_waiting());
}

// A publication is recorded record_after the broker's acknowledgement, and only for rows no
// consumer marked consumed by then (a consumer's mark records the publication too): those rows
// are not written by the relay at all.
TEST_F(OutboxRelay, APublicationIsRecordedAfterItsDelayUnlessAConsumerRecordedItFirst) {
  infra::store::outbox::Relay own(*pool_, *producer_, {.record_after = std::chrono::minutes(1)});
  std::vector<std::string> message_ids;
  const auto enqueued = pool_->transact([&](pqxx::work& tx) -> model::Status {
    for (int i = 0; i < 3; ++i) {
      message_ids.push_back(infra::store::outbox::enqueue(
          tx, topics::kPayoutsRequested, "org_relay", model::Mode::test, "po_relay_recorded"));
    }
    return model::ok_status();
  });
  ASSERT_TRUE(enqueued.ok());
  const auto ids = "'" + message_ids[0] + "','" + message_ids[1] + "','" + message_ids[2] + "'";
  const auto published_count = own.publish_once(Source::committed);
  ASSERT_TRUE(published_count.ok());
  EXPECT_EQ(*published_count, 3u);
  auto recorded = own.record_publications(Recording::due);
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(*recorded, 0u);  // not due yet
  EXPECT_EQ(published(ids), 0);
  mark_consumed(message_ids[0]);
  EXPECT_EQ(published(ids), 1);
  recorded = own.record_publications(Recording::all);
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(*recorded, 2u);
  EXPECT_EQ(published(ids), 3);
  EXPECT_EQ(publish_attempts(message_ids[0]), "0");  // recorded by its consumer alone
  EXPECT_EQ(publish_attempts(message_ids[1]), "1");
  recorded = own.record_publications(Recording::all);  // nothing twice
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(*recorded, 0u);
}

// A stopping relay records what it published, however long its delay.
TEST_F(OutboxRelay, AStoppingRelayRecordsEveryPublicationItMade) {
  infra::store::outbox::Relay relay(*pool_, *producer_, {.record_after = std::chrono::minutes(1)});
  relay.start();
  const auto ids = enqueue(3);
  relay.wake();
  relay.stop();
  EXPECT_EQ(published(ids), 3);
}

TEST_F(OutboxRelay, ARolledBackRowNeverReachesTheRelay) {
  infra::store::outbox::Relay own(*pool_, *producer_, {});
  const auto rolled_back = pool_->transact([&](pqxx::work& tx) -> model::Status {
    infra::store::outbox::enqueue(tx, topics::kPayoutsRequested, "org_relay", model::Mode::test,
                                  "po_relay_rolled_back");
    return model::Error::make(model::ErrorCode::internal_error, "rolled back on purpose");
  });
  EXPECT_FALSE(rolled_back.ok());
  EXPECT_FALSE(infra::store::outbox::committed_waiting());
  EXPECT_EQ(publish(Source::committed, &own), 0u);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM outbox WHERE message_key = "
                              "'po_relay_rolled_back'"),
            "0");
}

TEST_F(OutboxRelay, WithoutARelayInTheProcessRowsAreDueAtOnceForTheClaimOfEveryDueRow) {
  const auto ids = enqueue(2);
  EXPECT_LE(seconds_until_due(ids), 0.0);
  EXPECT_FALSE(infra::store::outbox::committed_waiting());
  EXPECT_EQ(publish(Source::committed), 0u);
  EXPECT_EQ(publish(Source::all_due), 2u);
  EXPECT_EQ(published(ids), 2);
}

// The relay's process died before publishing its rows: the claim of every due row takes them once
// their lease ran out, not before.
TEST_F(OutboxRelay, LeasedRowsOfARelayThatDiedArePublishedOnceTheirLeaseRanOut) {
  std::string ids;
  {
    infra::store::outbox::Relay died(*pool_, *producer_, {});
    ids = enqueue(2);
    (void)infra::store::outbox::take_committed(1000000);  // its memory went with it
  }
  EXPECT_EQ(publish(Source::all_due), 0u);
  make_due(ids, 1000);
  EXPECT_EQ(publish(Source::all_due), 2u);
  EXPECT_EQ(published(ids), 2);
}

// 200 rows due long ago and batches of two: the running relay claims every due row again at once
// while its batches come back full, so the backlog drains in about a second, where two rows per
// second of claims of every due row would take 100 s.
TEST_F(OutboxRelay, TheRunningRelayDrainsABacklogOfRowsDueLongAgo) {
  const auto ids = enqueue_without_relay(200, 60000);
  infra::store::outbox::Relay relay(*pool_, *producer_, {.batch_max = 2});
  relay.start();
  wait_until_published(ids, 200);
  relay.stop();
  EXPECT_EQ(published(ids), 200);
}

// A row due at once (written by another process, such as an operator's command), committed after
// the running relay's first claim of every due row: its next claim of every due row (once a
// second) publishes it without being woken.
TEST_F(OutboxRelay, TheRunningRelayFindsARowThatWasNeverLeasedToIt) {
  infra::store::outbox::Relay relay(*pool_, *producer_, {});
  relay.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto message = infra::store::outbox::new_message(topics::kPayoutsRequested, "org_relay",
                                                         model::Mode::test, "po_relay_elsewhere");
  database_->scalar("INSERT INTO outbox (message_id, topic, message_key, payload) VALUES ('" +
                    message.message_id + "', 'payouts.requested', 'po_relay_elsewhere', '{}')");
  const auto ids = "'" + message.message_id + "'";
  wait_until_published(ids, 1);
  relay.stop();
  EXPECT_EQ(published(ids), 1);
}

// A starting relay is due its claim of every due row at once, and a row due at once waits for it
// (same key, same partition); a row the process has just committed is published first all the
// same: the claim's transaction is not put on the path of a fresh payout.
TEST_F(OutboxRelay, RowsJustCommittedArePublishedBeforeTheClaimOfEveryDueRow) {
  const auto due = enqueue_without_relay(1, 1000);
  infra::store::outbox::Relay relay(*pool_, *producer_, {});
  const auto committed = enqueue(1);
  relay.start();
  wait_until_published(due + "," + committed, 2);
  relay.stop();
  ASSERT_EQ(published(due + "," + committed), 2);
  const auto offset_of = [](const std::string& ids) {
    return std::stol(
        database_->scalar("SELECT published_offset FROM outbox WHERE message_id IN (" + ids + ")"));
  };
  EXPECT_LT(offset_of(committed), offset_of(due));
}

// Every publication leaves an entry in outbox_unpublished that points at a dead row version until
// VACUUM. The claim of every due row and the backlog count pass over such entries by plain index
// scans, which mark them dead, so that the next walk skips them without reading the table. (A
// bitmap scan marks nothing: every claim, every second in every process, read the table page of
// every publication since the last VACUUM.) Counted in the index's pages (pageinspect).
TEST_F(OutboxRelay, WalksOfTheUnpublishedIndexMarkTheEntriesOfPublishedRowsDead) {
  database_->scalar("CREATE EXTENSION IF NOT EXISTS pageinspect");
  // An autovacuum during the test would remove marked entries, not only unmarked ones.
  database_->scalar("ALTER TABLE outbox SET (autovacuum_enabled = off)");
  database_->scalar("VACUUM outbox");  // no entry is marked dead: VACUUM removed them
  const auto dead_entries = [] {
    return std::stoi(database_->scalar(
        "SELECT count(*) FROM generate_series(1, pg_relation_size('outbox_unpublished') / "
        "current_setting('block_size')::int - 1) AS page, "
        "LATERAL bt_page_items('outbox_unpublished', page::int) WHERE dead"));
  };
  ASSERT_EQ(dead_entries(), 0);
  // A scan marks an entry only once no transaction of the cluster may still see its row version:
  // each walk is repeated until the marks show, for at most 30 s, a bound and not a measure. With
  // bitmap scans they never show. If they do not, the failure names the sessions whose snapshots
  // held them back.
  const auto horizon_holders = [] {
    return database_->scalar(
        "SELECT coalesce(string_agg(format('%s %s %s xmin %s since %s: %s', datname, "
        "application_name, state, backend_xmin, xact_start, left(query, 80)), E'\\n'), 'none') "
        "FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid()");
  };
  const auto walk_until = [&](const std::function<void()>& walk,
                              const std::function<bool()>& shown) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
      walk();
    } while (!shown() && std::chrono::steady_clock::now() < deadline);
  };
  // Each row's version made due here, then its version leased by the claim, are left dead.
  enqueue_without_relay(300, 1000);
  ASSERT_EQ(publish(Source::all_due), 300u);
  walk_until([&] { EXPECT_EQ(publish(Source::all_due), 0u); },  // walks the due versions
             [&] { return dead_entries() >= 300; });
  const auto marked_by_the_claim = dead_entries();
  EXPECT_GE(marked_by_the_claim, 300) << "snapshots held: " << horizon_holders();
  infra::store::outbox::Relay relay(*pool_, *producer_, {});
  walk_until([&] { ASSERT_TRUE(relay.refresh_backlog().ok()); },  // walks them all
             [&] { return dead_entries() > marked_by_the_claim; });
  EXPECT_GT(dead_entries(), marked_by_the_claim)  // the versions not due yet too
      << "snapshots held: " << horizon_holders();
  database_->scalar("ALTER TABLE outbox RESET (autovacuum_enabled)");
}

// The re-drive publishes again what the broker may have lost, not what waits in it. A message
// the broker holds at or after where its consumer group stands (here the group has never
// committed: it is down, or not started) is left for that group, however old; a row without a
// recorded position is re-driven by age, as before.
TEST_F(OutboxRelay, RedriveLeavesAMessageTheBrokerHoldsForItsGroup) {
  const auto waiting = publish_and_age(2);
  EXPECT_EQ(with_position(waiting), 2);
  const auto unknown = publish_and_age(1);
  database_->scalar(
      "UPDATE outbox SET published_partition = NULL, published_offset = NULL "
      "WHERE message_id IN (" +
      unknown + ")");
  infra::store::outbox::Relay relay(*pool_, *producer_, {.redrive_after = std::chrono::seconds(1)});
  ASSERT_TRUE(relay.redrive_once().ok());
  EXPECT_EQ(published(waiting), 2);
  EXPECT_EQ(published(unknown), 0);  // re-driven: unpublished, due again
}

// Once the group has committed past a message it never marked consumed, the broker will not give
// it that message again: it is re-driven.
TEST_F(OutboxRelay, RedriveTakesAMessageItsGroupCommittedPast) {
  const auto passed = publish_and_age(2);
  infra::store::outbox::Relay relay(*pool_, *producer_, {.redrive_after = std::chrono::seconds(1)});
  ASSERT_TRUE(relay.redrive_once().ok());
  EXPECT_EQ(published(passed), 2);                    // the group has not reached them yet
  const auto far_future_ms = int64_t{4102444800000};  // 2100-01-01: every partition's end
  ASSERT_TRUE(infra::kafka::reset_offsets_to_time(
                  cluster_->bootstrap(), std::string(topics::kPayoutsRequested.consumer_group),
                  topics::broker_topic_name(topics::kPayoutsRequested, ""), far_future_ms)
                  .ok());
  ASSERT_TRUE(relay.redrive_once().ok());
  EXPECT_EQ(published(passed), 0);
}

// A message past its partition's end is one the broker lost (the in-memory broker restarted and
// its log starts again from 0): re-driven at once.
TEST_F(OutboxRelay, RedriveTakesAMessageTheBrokerNoLongerHolds) {
  const auto lost = publish_and_age(1);
  database_->scalar(
      "UPDATE outbox SET published_offset = published_offset + 1000000 "
      "WHERE message_id IN (" +
      lost + ")");
  infra::store::outbox::Relay relay(*pool_, *producer_, {.redrive_after = std::chrono::seconds(1)});
  ASSERT_TRUE(relay.redrive_once().ok());
  EXPECT_EQ(published(lost), 0);
}

// When the broker does not answer where the groups stand, every old enough row is re-driven by
// age alone: nothing waits on an answer that may never come.
TEST_F(OutboxRelay, RedriveFallsBackToAgeWhenTheBrokerGivesNoPositions) {
  const auto waiting = publish_and_age(1);
  auto unreachable = infra::kafka::Producer::create({.brokers = "127.0.0.1:1"});
  ASSERT_TRUE(unreachable.ok());
  infra::store::outbox::Relay relay(*pool_, **unreachable,
                                    {.redrive_after = std::chrono::seconds(1)});
  ASSERT_TRUE(relay.redrive_once().ok());
  EXPECT_EQ(published(waiting), 0);
}

}  // namespace
}  // namespace payrail::testing
