// Events reach the `events` topic (through the outbox) only when a webhook endpoint subscribes to
// them, and never miss an endpoint that exists when the event commits: against a real database,
// with the endpoint's creation and the event's transaction racing in both orders. A transaction's
// events (and their messages) are written together just before it commits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/webhooks/events.h"
#include "infra/store/webhooks/webhook_endpoints.h"
#include "tests/support/database.h"

namespace payrail::testing {
namespace {

namespace events = infra::store::events;
namespace endpoints = infra::store::webhook_endpoints;

const std::string kEncryptionKey(32, 'k');

class EventSubscriptions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    for (const auto* org :
         {"org_subscribed", "org_quiet", "org_deleted", "org_race1", "org_race2", "org_batch"}) {
      database_->add_organization(org);
    }
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 4});
  }
  static void TearDownTestSuite() {
    delete pool_;
    delete database_;
  }

  static endpoints::NewEndpoint endpoint_of(const std::string& org_id, model::Mode mode,
                                            std::vector<std::string> types) {
    return {org_id, mode, "https://hooks.example.com/payrail", std::move(types)};
  }

  static std::string append(pqxx::work& tx, const std::string& org_id, model::Mode mode,
                            const std::string& type) {
    return events::append(tx, {org_id, mode, type, "payout", "po_" + org_id, ++sequence_},
                          [](const std::string&, const std::string&) { return "{}"; });
  }
  static std::string append(const std::string& org_id, model::Mode mode, const std::string& type) {
    return pool_
        ->transact([&](pqxx::work& tx) -> model::Result<std::string> {
          return append(tx, org_id, mode, type);
        })
        .value();
  }

  // Whether the `events` topic got a message for the event.
  static bool has_message(const std::string& event_id) {
    return database_->scalar(
               "SELECT count(*) FROM outbox WHERE topic = 'events' AND "
               "message_key = '" +
               event_id + "'") == "1";
  }

  // Waits until a session of this database waits for a lock, or `done` (at most 10 s).
  static void await_lock_wait(const std::atomic<bool>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      if (database_->scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                            "current_database() AND wait_event_type = 'Lock'") != "0") {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  inline static TestDatabase* database_ = nullptr;
  inline static infra::pg::Pool* pool_ = nullptr;
  inline static int sequence_ = 0;
};

TEST_F(EventSubscriptions, OnlySubscribedEventsGoToTheTopic) {
  ASSERT_TRUE(endpoints::create(*pool_,
                                endpoint_of("org_subscribed", model::Mode::test,
                                            {"payout.created", "payout.completed"}),
                                kEncryptionKey)
                  .ok());
  const auto deleted = endpoints::create(
      *pool_, endpoint_of("org_deleted", model::Mode::test, {"payout.created"}), kEncryptionKey);
  ASSERT_TRUE(deleted.ok());
  ASSERT_TRUE(endpoints::remove(*pool_, "org_deleted", model::Mode::test, deleted->row.id).value());

  EXPECT_TRUE(has_message(append("org_subscribed", model::Mode::test, "payout.created")));
  EXPECT_TRUE(has_message(append("org_subscribed", model::Mode::test, "payout.completed")));
  // Another type, another mode, another organization, a deleted endpoint: no message.
  EXPECT_FALSE(has_message(append("org_subscribed", model::Mode::test, "payout.failed")));
  EXPECT_FALSE(has_message(append("org_subscribed", model::Mode::live, "payout.created")));
  EXPECT_FALSE(has_message(append("org_quiet", model::Mode::test, "payout.created")));
  EXPECT_FALSE(has_message(append("org_deleted", model::Mode::test, "payout.created")));
  // Every event is recorded (GET /v1/events) whether or not anyone subscribes.
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM events WHERE org_id = 'org_quiet'"), "1");
}

// The endpoint's transaction is open when the event's begins: the event waits for it and, once
// the endpoint is committed, is published.
TEST_F(EventSubscriptions, AnEventCommittedAfterAnEndpointIsPublished) {
  auto connection = database_->connect();
  pqxx::work endpoint_tx(*connection);
  ASSERT_TRUE(endpoints::create(endpoint_tx,
                                endpoint_of("org_race1", model::Mode::test, {"payout.created"}),
                                kEncryptionKey)
                  .ok());
  std::atomic<bool> done{false};
  std::string event_id;
  std::thread event([&] {
    event_id = append("org_race1", model::Mode::test, "payout.created");
    done = true;
  });
  await_lock_wait(done);
  EXPECT_FALSE(done) << "the event's transaction did not wait for the endpoint's";
  endpoint_tx.commit();
  event.join();
  EXPECT_TRUE(has_message(event_id));
}

// The event's transaction is open when the endpoint's begins: the endpoint waits for it, so the
// event commits before the endpoint exists (nothing is owed to it) and every later event is
// published.
TEST_F(EventSubscriptions, AnEndpointWaitsForEventsInFlight) {
  auto connection = database_->connect();
  pqxx::work event_tx(*connection);
  const auto in_flight = append(event_tx, "org_race2", model::Mode::test, "payout.created");
  std::atomic<bool> done{false};
  bool created = false;
  std::thread endpoint([&] {
    created =
        endpoints::create(*pool_, endpoint_of("org_race2", model::Mode::test, {"payout.created"}),
                          kEncryptionKey)
            .ok();
    done = true;
  });
  await_lock_wait(done);
  EXPECT_FALSE(done) << "the endpoint was created while an event's transaction was in flight";
  event_tx.commit();
  endpoint.join();
  ASSERT_TRUE(created);
  EXPECT_FALSE(has_message(in_flight));
  EXPECT_TRUE(has_message(append("org_race2", model::Mode::test, "payout.created")));
}

// Deferred to the commit (store::defer_row): inside the transaction nothing is written yet; at the
// commit every event is, and a message exists for each subscribed one, whatever the number.
TEST_F(EventSubscriptions, ATransactionsEventsAreWrittenTogetherAtItsCommit) {
  ASSERT_TRUE(endpoints::create(*pool_,
                                endpoint_of("org_batch", model::Mode::test, {"payout.created"}),
                                kEncryptionKey)
                  .ok());
  std::vector<std::string> ids;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    for (const auto* type : {"payout.created", "payout.failed", "payout.created"}) {
      ids.push_back(append(tx, "org_batch", model::Mode::test, type));
    }
    ids.push_back(append(tx, "org_batch", model::Mode::live, "payout.created"));
    EXPECT_EQ(
        tx.exec1("SELECT count(*) FROM events WHERE id IN ('" + ids[0] + "', '" + ids[3] + "')")[0]
            .as<int>(),
        0);
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok());
  for (const auto& id : ids) {
    EXPECT_EQ(database_->scalar("SELECT count(*) FROM events WHERE id = '" + id + "'"), "1");
  }
  EXPECT_TRUE(has_message(ids[0]));
  EXPECT_FALSE(has_message(ids[1]));
  EXPECT_TRUE(has_message(ids[2]));
  EXPECT_FALSE(has_message(ids[3]));
}

TEST_F(EventSubscriptions, AnEventOfAnUnknownOrganizationFailsItsTransaction) {
  const auto count = [] { return database_->scalar("SELECT count(*) FROM events"); };
  const auto before = count();
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    append(tx, "org_batch", model::Mode::test, "payout.created");
    append(tx, "org_missing", model::Mode::test, "payout.created");
    return model::ok_status();
  });
  EXPECT_FALSE(committed.ok());
  EXPECT_EQ(count(), before);
}

}  // namespace
}  // namespace payrail::testing
