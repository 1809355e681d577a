// Collections against a real PostgreSQL, in process: a provider's notification is recorded once
// however often it is delivered, with exactly one message for the settlement worker; a
// collection's notifications apply in the order they arrived (a payment, then its return, ends
// failed: ids are random, arrival is not); expiry is
// by database time, to the second at the 72-hour boundary, with the test-only clock offset
// applying to test-mode collections only; expiry batches are bounded.
#include <gtest/gtest.h>

#include "infra/plumbing/ids.h"

#include <map>

#include "infra/adapters/collections/provider.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/collections/collections.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "tests/support/database.h"
#include "workers/settlement/apply_provider_event.h"

namespace payrail::testing {
namespace {

namespace collections = infra::store::collections;
namespace provider_events = infra::store::collection_provider_events;
using model::ProviderEventType;

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
    request.id = infra::new_id("col_");
    request.scope = {"org_collections1", mode, key};
    request.endpoint = "POST /v1/collections";
    request.request_hash = key;
    request.amount = "10.00";
    request.currency = "CAD";
    request.method = model::find_collection_method("eft");
    request.expires_after_s = kSeventyTwoHours;
    request.reference = collections::new_reference();
    request.provider = std::string(provider.name());
    request.instructions_json = provider.instructions_json(*request.method, request.reference);
    auto outcome = pool_->transact([&](pqxx::work& tx) { return collections::create(tx, request); });
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
  // Records a notification as an adapter (or a test helper) does: in a transaction of its own.
  provider_events::Recorded record(const model::ProviderEvent& event) {
    auto recorded =
        pool_->transact([&](pqxx::work& tx) -> model::Result<provider_events::Recorded> {
          return provider_events::record(tx, event);
        });
    EXPECT_TRUE(recorded.ok());
    return recorded.ok() ? *recorded : provider_events::Recorded{};
  }
  // The simulator's payment for the collection, its amount and reference as asked.
  model::ProviderEvent payment_for(const std::string& id, const std::string& amount = "10.00") {
    const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
    return provider.notification(
        ProviderEventType::payment_received, "eft",
        database_->scalar("SELECT reference FROM collections WHERE id = '" + id + "'"), amount,
        "CAD");
  }
  // What the settlement worker does with a collection's pending notifications; its status after.
  std::string apply(const std::string& id) {
    auto applied = pool_->transact([&](pqxx::work& tx) -> model::Result<std::string> {
      auto collection = collections::lock(tx, id);
      return workers::settlement::apply_pending_notifications(tx, *collection).resource.status;
    });
    EXPECT_TRUE(applied.ok());
    return applied.ok() ? *applied : "";
  }
  std::string outcomes_of(const std::string& id) {
    return database_->scalar(
        "SELECT string_agg(type || ':' || amount || ':' || coalesce(outcome, 'pending'), ',' "
        "ORDER BY arrival) FROM collection_provider_events WHERE collection_id = '" +
        id + "'");
  }
  std::string events_of(const std::string& id) {
    return database_->scalar(
        "SELECT string_agg(type, ',' ORDER BY sequence) FROM events WHERE "
        "resource_id = '" +
        id + "'");
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

// Notifications are unique per provider, mode and event id: the sandbox and a live provider
// account are separate namespaces, so a live notification reusing a test one's id is another
// notification, recorded and queued on its own; its redelivery is still recorded once.
TEST_F(CollectionsStorage, ALiveNotificationMayReuseATestNotificationsEventId) {
  const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
  auto event = provider.notification(ProviderEventType::payment_received, "eft", "PRNOSUCHREF1",
                                     "10.00", "CAD");
  const auto in_test = record(event);
  event.mode = model::Mode::live;
  const auto in_live = record(event);
  EXPECT_FALSE(in_live.duplicate);
  EXPECT_NE(in_live.id, in_test.id);
  const auto again = record(event);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.id, in_live.id);
  EXPECT_EQ(database_->scalar("SELECT string_agg(mode, ',' ORDER BY arrival) FROM "
                              "collection_provider_events"),
            "test,live");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM outbox WHERE topic = "
                              "'collections.provider_events'"),
            "2");
}

// A repeated event id whose content differs (another amount, another type) is no redelivery:
// it is recorded as an exception for operators, listed with the others, never applied and never
// ignored; the first notification stands and is the only one queued. Each differing version is
// recorded once.
TEST_F(CollectionsStorage, ARepeatedEventIdWithOtherContentIsAnExceptionForOperators) {
  const auto id = create(model::Mode::test, "conflict");
  const auto event = payment_for(id, "10.00");
  const auto first = record(event);
  auto other_amount = event;
  other_amount.amount = "1000.00";
  const auto second = record(other_amount);
  EXPECT_FALSE(second.duplicate);
  EXPECT_NE(second.id, first.id);
  auto other_type = event;
  other_type.type = ProviderEventType::payment_returned;
  const auto third = record(other_type);
  EXPECT_FALSE(third.duplicate);
  EXPECT_NE(third.id, second.id);
  // Redeliveries of any version are recorded once.
  EXPECT_EQ(record(other_amount).id, second.id);
  EXPECT_EQ(record(event).id, first.id);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM collection_provider_events"), "3");

  auto listed = provider_events::exceptions(*pool_, model::Mode::test, 100);
  ASSERT_TRUE(listed.ok());
  std::map<std::string, std::string> outcomes;
  for (const auto& row : *listed) {
    outcomes[row.id] = row.outcome.value_or("pending") + ":" + row.event.amount;
  }
  EXPECT_EQ(outcomes[second.id], "conflicting_duplicate:1000.00");
  EXPECT_EQ(outcomes[third.id], "conflicting_duplicate:10.00");
  EXPECT_EQ(database_->scalar("SELECT string_agg(message_key, ',') FROM outbox WHERE topic = "
                              "'collections.provider_events'"),
            first.id);
  EXPECT_EQ(apply(id), "received");
  EXPECT_EQ(database_->scalar("SELECT received_amount FROM collections WHERE id = '" + id + "'"),
            "10.00");
}

// A cancel after a payment was recorded, but before the settlement worker applied it, is refused:
// the payer paid before the cancel, so the payment is received, never late.
TEST_F(CollectionsStorage, APaymentRecordedBeforeTheCancelWins) {
  const auto id = create(model::Mode::test, "race-cancel");
  record(payment_for(id));
  const auto cancelled =
      collections::cancel(*pool_, "org_collections1", model::Mode::test, id, "key_test");
  ASSERT_FALSE(cancelled.ok()) << cancelled->resource.status;
  EXPECT_EQ(cancelled.error().code, model::ErrorCode::collection_not_cancelable);
  EXPECT_EQ(apply(id), "received");
  EXPECT_EQ(outcomes_of(id), "payment_received:10.00:applied");
  EXPECT_EQ(events_of(id), "collection.received");
}

// A payment recorded after the collection's deadline is late even when the settlement worker
// applies it before the expiry worker has run: the collection expires then, with its event.
TEST_F(CollectionsStorage, APaymentAfterTheDeadlineIsLateWhenSettlementRunsFirst) {
  const auto id = create(model::Mode::test, "late-first");
  ASSERT_TRUE(collections::expire_now(*pool_, "org_collections1", model::Mode::test, id).ok());
  record(payment_for(id));
  EXPECT_EQ(apply(id), "expired");
  EXPECT_EQ(outcomes_of(id), "payment_received:10.00:late_payment");
  EXPECT_EQ(events_of(id), "collection.expired");
  EXPECT_EQ(expire(100, 0), 0);  // already expired, once
}

// A payment recorded before the deadline is received even when the expiry worker runs before
// the settlement worker: a collection whose payment waits to be applied does not expire.
TEST_F(CollectionsStorage, APaymentBeforeTheDeadlineIsReceivedWhenExpiryRunsFirst) {
  const auto id = create(model::Mode::test, "paid-first");
  const auto unpaid = create(model::Mode::test, "unpaid");
  record(payment_for(id));
  for (const auto& each : {id, unpaid}) {
    ASSERT_TRUE(collections::expire_now(*pool_, "org_collections1", model::Mode::test, each).ok());
  }
  EXPECT_EQ(expire(100, 0), 1);
  EXPECT_EQ(status_of(unpaid), "expired");
  EXPECT_EQ(status_of(id), "awaiting_payment");
  EXPECT_EQ(apply(id), "received");
  EXPECT_EQ(outcomes_of(id), "payment_received:10.00:applied");
  EXPECT_EQ(expire(100, 0), 0);
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
