// The webhook worker's fan-out of a batch of `events` messages, against a real database, with the
// batch's prefetch (one statement reads every message's consumed mark and subscribed endpoints,
// TopicHandler::prefetch) and without it (each message reads its own): both give each event one
// delivery per active endpoint of its organization and mode subscribed to its type, nothing for
// an unknown event, a deleted endpoint or another organization, mark every message consumed, and
// change nothing when the batch is applied again, even for an endpoint created since. When one
// message of the batch fails, the rest is applied (the pass with savepoints prefetches again) and
// the failed one is left unconsumed for its retry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/outbox/relay.h"
#include "infra/store/webhooks/events.h"
#include "infra/store/webhooks/webhook_endpoints.h"
#include "tests/support/database.h"
#include "workers/webhooks/fan_out.h"

namespace payrail::testing {
namespace {

namespace endpoints = infra::store::webhook_endpoints;
using infra::kafka::HandlerOutcome;

const std::string kEncryptionKey(32, 'k');

class EventFanOut : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 2});
    auto producer = infra::kafka::Producer::create({.brokers = "127.0.0.1:9"});
    producer_ = producer->release();
    relay_ = new infra::store::outbox::Relay(*pool_, *producer_, {});
  }
  static void TearDownTestSuite() {
    delete relay_;
    delete producer_;
    delete pool_;
    delete database_;
  }

  // An organization of this test only (the prefetch variant and the plain one each get theirs).
  static std::string new_organization(const std::string& name) {
    const auto org_id = "org_fan_" + name + (GetParam() ? "_prefetched" : "_plain");
    database_->add_organization(org_id);
    return org_id;
  }

  static std::string new_endpoint(const std::string& org_id, std::vector<std::string> types) {
    auto created = endpoints::create(
        *pool_, {org_id, model::Mode::test, "https://hooks.example.com/fan", std::move(types)},
        kEncryptionKey);
    EXPECT_TRUE(created.ok());
    return created.ok() ? created->row.id : "";
  }

  // The event and its `events` message (written by the event's transaction when an endpoint
  // subscribes), as the worker receives it.
  static infra::kafka::Delivery event_message(const std::string& org_id, const std::string& type,
                                              int32_t partition) {
    const auto event_id =
        pool_
            ->transact([&](pqxx::work& tx) -> model::Result<std::string> {
              return infra::store::events::append(
                  tx, {org_id, model::Mode::test, type, "payout", "po_" + org_id, ++sequence_},
                  [](const std::string&, const std::string&) { return "{}"; });
            })
            .value();
    return delivery(database_->scalar("SELECT message_id FROM outbox WHERE topic = 'events' AND "
                                      "message_key = '" +
                                      event_id + "'"),
                    event_id, partition);
  }

  static infra::kafka::Delivery delivery(const std::string& message_id, const std::string& event_id,
                                         int32_t partition) {
    infra::kafka::Delivery result;
    result.envelope.message_id = message_id;
    result.envelope.type = std::string(topics::kEvents.message_type);
    result.envelope.resource_id = event_id;
    result.topic = "events";
    result.partition = partition;
    return result;
  }

  // Applies the batch as payrail-webhooks does; `failing` (an index) fails its message.
  static std::vector<HandlerOutcome> apply(const std::vector<infra::kafka::Delivery>& deliveries,
                                           int* wakes, std::size_t failing = SIZE_MAX) {
    infra::runtime::Batch batch(topics::kEvents, deliveries,
                                GetParam() ? workers::webhooks::prefetch_fan_outs : nullptr);
    infra::Config config;
    infra::runtime::WorkerContext context{config, *pool_, *relay_, "event-fan-out-test"};
    const auto applied =
        infra::runtime::apply_each(context, batch, [&](pqxx::work& tx, std::size_t index) {
          if (index == failing) {
            return model::Status(
                model::Error::make(model::ErrorCode::internal_error, "this message fails"));
          }
          return workers::webhooks::fan_out_event(tx, batch.message(index), [wakes] { ++*wakes; });
        });
    EXPECT_TRUE(applied.ok());
    return batch.outcomes();
  }

  // The event's deliveries: their endpoints, in id order.
  static std::string delivered_to(const infra::kafka::Delivery& message) {
    return database_->scalar(
        "SELECT coalesce(string_agg(endpoint_id, ',' ORDER BY endpoint_id), '') FROM "
        "webhook_deliveries WHERE event_id = '" +
        message.envelope.resource_id + "' AND status = 'pending'");
  }

  static bool consumed(const infra::kafka::Delivery& message) {
    return database_->scalar("SELECT consumed_at IS NOT NULL FROM outbox WHERE message_id = '" +
                             message.envelope.message_id + "'") == "t";
  }

  static std::string joined(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    std::string text;
    for (const auto& id : ids) text += (text.empty() ? "" : ",") + id;
    return text;
  }

  inline static TestDatabase* database_ = nullptr;
  inline static infra::pg::Pool* pool_ = nullptr;
  inline static infra::kafka::Producer* producer_ = nullptr;
  inline static infra::store::outbox::Relay* relay_ = nullptr;
  inline static int sequence_ = 0;
};

TEST_P(EventFanOut, EachEventReachesItsSubscribedEndpointsOnce) {
  const auto org_id = new_organization("subscribed");
  const auto other_org_id = new_organization("other");
  const auto both = new_endpoint(org_id, {"payout.created", "payout.completed"});
  const auto created_only = new_endpoint(org_id, {"payout.created"});
  const auto deleted = new_endpoint(org_id, {"payout.created"});
  const auto other = new_endpoint(other_org_id, {"payout.created"});
  const auto created = event_message(org_id, "payout.created", 0);
  const auto completed = event_message(org_id, "payout.completed", 1);
  const auto elsewhere = event_message(other_org_id, "payout.created", 0);
  ASSERT_TRUE(endpoints::remove(*pool_, org_id, model::Mode::test, deleted).value());
  // A message whose event does not exist (its outbox row does): consumed, nothing delivered.
  const auto unknown = delivery("msg_fan_unknown_" + org_id, "evt_fan_unknown", 1);
  database_->scalar(
      "INSERT INTO outbox (message_id, topic, message_key, payload, published_at) VALUES ('" +
      unknown.envelope.message_id + "', 'events', 'evt_fan_unknown', '{}', now()) RETURNING 1");

  int wakes = 0;
  const std::vector<infra::kafka::Delivery> batch{created, completed, elsewhere, unknown};
  EXPECT_EQ(apply(batch, &wakes), std::vector<HandlerOutcome>(4, HandlerOutcome::done));
  EXPECT_EQ(delivered_to(created), joined({both, created_only}));
  EXPECT_EQ(delivered_to(completed), both);
  EXPECT_EQ(delivered_to(elsewhere), other);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = '" +
                              deleted + "'"),
            "0");
  for (const auto& message : batch) EXPECT_TRUE(consumed(message)) << message.envelope.message_id;
  EXPECT_EQ(wakes, 3);  // after the commit, for each event with deliveries

  // Applied again (a redelivery, a replay): nothing changes, not even for a new endpoint.
  const auto later = new_endpoint(org_id, {"payout.created"});
  EXPECT_EQ(apply(batch, &wakes), std::vector<HandlerOutcome>(4, HandlerOutcome::done));
  EXPECT_EQ(delivered_to(created), joined({both, created_only}));
  EXPECT_EQ(delivered_to(completed), both);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = '" +
                              later + "'"),
            "0");
  EXPECT_EQ(wakes, 3);
}

TEST_P(EventFanOut, AFailingMessageLeavesTheRestOfItsBatchApplied) {
  const auto org_id = new_organization("failing");
  const auto endpoint = new_endpoint(org_id, {"payout.created"});
  const auto first = event_message(org_id, "payout.created", 0);
  const auto failing = event_message(org_id, "payout.created", 1);
  const auto last = event_message(org_id, "payout.created", 2);

  int wakes = 0;
  EXPECT_EQ(apply({first, failing, last}, &wakes, 1),
            (std::vector<HandlerOutcome>{HandlerOutcome::done, HandlerOutcome::retry,
                                         HandlerOutcome::done}));
  EXPECT_EQ(delivered_to(first), endpoint);
  EXPECT_EQ(delivered_to(failing), "");
  EXPECT_EQ(delivered_to(last), endpoint);
  EXPECT_TRUE(consumed(first));
  EXPECT_FALSE(consumed(failing));
  EXPECT_TRUE(consumed(last));

  // Its retry, alone, applies it once.
  EXPECT_EQ(apply({failing}, &wakes), std::vector<HandlerOutcome>{HandlerOutcome::done});
  EXPECT_EQ(delivered_to(failing), endpoint);
  EXPECT_TRUE(consumed(failing));
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = '" +
                              endpoint + "'"),
            "3");
}

INSTANTIATE_TEST_SUITE_P(Batches, EventFanOut, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Prefetched" : "MessageByMessage";
                         });

}  // namespace
}  // namespace payrail::testing
