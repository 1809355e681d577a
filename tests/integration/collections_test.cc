// Collections against a real PostgreSQL, in process: a provider's notification is recorded once
// however often it is delivered, with exactly one message for the settlement worker; a
// collection's notifications apply in the order they arrived (a payment, then its return, ends
// failed: ids are random, arrival is not); expiry is
// by database time, to the second at the 72-hour boundary, with the test-only clock offset
// applying to test-mode collections only; expiry batches are bounded.
#include <gtest/gtest.h>

#include "infra/collections/provider.h"
#include "infra/pg/pool.h"
#include "infra/repositories/collection_provider_events.h"
#include "infra/repositories/collections.h"
#include "schemas/model/corridors.h"
#include "tests/support/database.h"
#include "workers/settlement/apply_provider_event.h"

namespace payrail::testing {
namespace {

namespace collections = infra::repositories::collections;
namespace provider_events = infra::repositories::collection_provider_events;
using infra::collections::ProviderEventType;

constexpr int kSeventyTwoHours = 72 * 3600;

class CollectionsStorage : public ::testing::Test {
 protected:
  void SetUp() override {
    database_ = std::make_unique<TestDatabase>();
    database_->scalar(
        "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) VALUES "
        "('org_collections1', 'Collections Ltd', 'Collections', 'CA', 'owner') RETURNING id");
    pool_ = std::make_unique<infra::pg::Pool>(
        infra::pg::PoolOptions{.url = database_->url(), .max_connections = 2});
  }

  std::string create(model::Mode mode, const std::string& key) {
    const infra::collections::SimulatedCollectionProvider provider(mode);
    collections::NewCollection request;
    request.scope = {"org_collections1", mode, key};
    request.endpoint = "POST /v1/collections";
    request.request_hash = key;
    request.amount = "10.00";
    request.currency = "CAD";
    request.method = model::find_collection_method("eft");
    request.expires_after_s = kSeventyTwoHours;
    request.request_id = "req_test";
    auto outcome = collections::create(*pool_, request, provider);
    EXPECT_TRUE(outcome.ok() && outcome->created);
    return outcome->created->resource.id;
  }
  int expire(int batch_max, int offset_s) {
    auto expired = collections::expire_due(*pool_, batch_max, offset_s);
    EXPECT_TRUE(expired.ok());
    return expired.ok() ? *expired : -1;
  }
  std::string status_of(const std::string& id) {
    return database_->scalar("SELECT status FROM collections WHERE id = '" + id + "'");
  }

  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<infra::pg::Pool> pool_;
};

TEST_F(CollectionsStorage, ANotificationIsRecordedOnceHoweverOftenItArrives) {
  const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
  auto event = provider.notification(ProviderEventType::payment_received, "eft", "pr-abcd efgh jk",
                                     "10.00", "CAD");
  std::vector<provider_events::Recorded> results;
  for (int delivery = 0; delivery < 3; ++delivery) {
    auto recorded =
        pool_->transact([&](pqxx::work& tx) -> model::Result<provider_events::Recorded> {
          return provider_events::record(tx, event);
        });
    ASSERT_TRUE(recorded.ok());
    results.push_back(*recorded);
  }
  EXPECT_FALSE(results[0].duplicate);
  EXPECT_TRUE(results[1].duplicate);
  EXPECT_TRUE(results[2].duplicate);
  EXPECT_EQ(results[1].id, results[0].id);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM collection_provider_events"), "1");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM outbox WHERE topic = "
                              "'collections.provider_events' AND message_key = '" +
                              results[0].id + "'"),
            "1");
  // Matched in normalized form; the payer's text is kept as written.
  EXPECT_EQ(database_->scalar("SELECT reference_normalized || '|' || reference FROM "
                              "collection_provider_events"),
            "PRABCDEFGHJK|pr-abcd efgh jk");
  // Another provider event id is another notification.
  event.provider_event_id += "-2";
  auto second = pool_->transact([&](pqxx::work& tx) -> model::Result<provider_events::Recorded> {
    return provider_events::record(tx, event);
  });
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->duplicate);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM collection_provider_events"), "2");
}

// Twenty collections each get a payment and its return in one transaction, as the /fail helper
// records them; applied by the settlement worker's own function, every one ends failed and none
// is credited. (Applied in id order, about half would have ignored the return and settled.)
TEST_F(CollectionsStorage, NotificationsApplyInArrivalOrder) {
  const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
  for (int i = 0; i < 20; ++i) {
    const auto id = create(model::Mode::test, "order-" + std::to_string(i));
    auto applied = pool_->transact([&](pqxx::work& tx) -> model::Result<std::string> {
      auto collection = collections::lock(tx, id);
      for (const auto type :
           {ProviderEventType::payment_received, ProviderEventType::payment_returned}) {
        provider_events::record(
            tx, provider.notification(type, "eft", collection->reference, "10.00", "CAD"));
      }
      return workers::settlement::apply_pending_notifications(tx, *collection).resource.status;
    });
    ASSERT_TRUE(applied.ok());
    EXPECT_EQ(*applied, "failed") << id;
    EXPECT_EQ(status_of(id), "failed");
  }
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM collection_provider_events WHERE outcome = "
                              "'applied'"),
            "40");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM journal_entries"), "0");
}

TEST_F(CollectionsStorage, ExpiresAtSeventyTwoHoursOfDatabaseTime) {
  const auto id = create(model::Mode::test, "k1");
  EXPECT_EQ(database_->scalar("SELECT extract(epoch FROM expires_at - created_at)::int FROM "
                              "collections WHERE id = '" +
                              id + "'"),
            std::to_string(kSeventyTwoHours));
  // A minute short of the deadline nothing expires; a minute past it, the collection does.
  EXPECT_EQ(expire(100, kSeventyTwoHours - 60), 0);
  EXPECT_EQ(status_of(id), "awaiting_payment");
  EXPECT_EQ(expire(100, kSeventyTwoHours + 60), 1);
  EXPECT_EQ(status_of(id), "expired");
  EXPECT_EQ(database_->scalar("SELECT type || ':' || sequence FROM events WHERE resource_id = '" +
                              id + "'"),
            "collection.expired:1");
  EXPECT_EQ(database_->scalar("SELECT from_status || '>' || to_status || ':' || trigger FROM "
                              "resource_transitions WHERE resource_id = '" +
                              id + "' AND from_status IS NOT NULL"),
            "awaiting_payment>expired:expire");
  EXPECT_EQ(expire(100, kSeventyTwoHours + 60), 0);  // once
}

TEST_F(CollectionsStorage, TheTestClockOffsetNeverTouchesLiveCollections) {
  const auto live = create(model::Mode::live, "k-live");
  EXPECT_EQ(expire(100, 366 * 86400), 0);
  EXPECT_EQ(status_of(live), "awaiting_payment");
  database_->scalar("UPDATE collections SET expires_at = now() - interval '1 second' WHERE id = '" +
                    live + "' RETURNING 1");
  EXPECT_EQ(expire(100, 0), 1);
  EXPECT_EQ(status_of(live), "expired");
}

TEST_F(CollectionsStorage, ExpiryWorksInBoundedBatches) {
  for (int i = 0; i < 5; ++i) create(model::Mode::test, "batch-" + std::to_string(i));
  EXPECT_EQ(expire(2, kSeventyTwoHours + 1), 2);
  EXPECT_EQ(expire(2, kSeventyTwoHours + 1), 2);
  EXPECT_EQ(expire(2, kSeventyTwoHours + 1), 1);
  EXPECT_EQ(expire(2, kSeventyTwoHours + 1), 0);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM events WHERE type = 'collection.expired'"),
            "5");
}

}  // namespace
}  // namespace payrail::testing
