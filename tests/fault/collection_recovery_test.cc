// Collections under failure: kill -9 of the settlement worker while payments stream in, kill -9
// of the expiry worker while collections come due, and a replay of both collection topics from
// offset 0. After each: every collection reaches the right terminal state exactly once, each
// event fires once, each settled collection is credited exactly once (and nothing else is),
// and balances equal the journal.
#include <gtest/gtest.h>

#include <signal.h>

#include <map>
#include <thread>

#include "tests/support/collections.h"
#include "tests/support/payouts.h"
#include "tests/support/replay.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kBatchSize = 40;
constexpr auto kBetweenCalls = std::chrono::milliseconds(25);
constexpr auto kRecoveryTimeout = std::chrono::seconds(90);
const std::set<std::string> kTerminal{"settled", "failed", "expired", "cancelled"};

struct Method {
  const char* currency;
  const char* method;
};
constexpr Method kMethods[] = {{"CAD", "interac_etransfer"}, {"USD", "ach"}, {"CAD", "eft"}};

class CollectionRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"},
                                    {"PAYRAIL_EXPIRY_INTERVAL_MS", "100"}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  static const HttpClient& http() { return stack_->http(); }
  static const TestDatabase& db() { return stack_->database(); }

  // Creates a batch of unpaid collections; returns their ids in order.
  std::vector<std::string> create_batch(const TestOrganization& org) {
    std::vector<std::string> ids;
    for (int i = 0; i < kBatchSize; ++i) {
      const auto& method = kMethods[i % 3];
      const auto response = create_collection(
          http(), org.test_key, "batch-" + std::to_string(i),
          collection_body(std::to_string(10 + i) + ".25", method.currency, method.method));
      EXPECT_EQ(response.status, 201) << response.body;
      ids.push_back(response.json()["id"].GetString());
    }
    return ids;
  }

  // Calls a test helper until the API answers 202 (it never restarts here, but be patient).
  static void call_helper(const TestOrganization& org, const std::string& id,
                          const std::string& action, const std::string& body = "") {
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (collection_helper(http(), org.test_key, id, action, body).status == 202) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << action << " " << id << " never accepted";
  }

  static void kill_and_restart(const std::string& role) {
    stack_->stop(role, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stack_->start(role);
  }

  static int count(const std::string& sql) { return std::stoi(db().scalar(sql)); }

  // The events a collection fired, in sequence order.
  static std::string events_of(const std::string& id) {
    return db().scalar(
        "SELECT string_agg(type, ',' ORDER BY sequence) FROM events WHERE "
        "resource_id = '" +
        id + "'");
  }

  static void expect_ledger_consistent() {
    EXPECT_EQ(ledger_mismatch(db()), "");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM (SELECT resource_id FROM events GROUP BY "
                          "resource_id HAVING max(sequence) <> count(*)) gaps"),
              "0");
  }

  static TestStack* stack_;
};
TestStack* CollectionRecovery::stack_ = nullptr;

// Every 4th collection fails (payment then failure), every 4th is paid short, the rest exactly;
// the settlement worker dies mid-stream and comes back.
TEST_F(CollectionRecovery, KillNineSettlementMidStreamLosesNothingAndCreditsOnce) {
  const auto org = stack_->create_organization();
  const auto ids = create_batch(org);
  const auto before = usdc_available(http(), org.test_key);
  std::thread payer([&] {
    for (int i = 0; i < kBatchSize; ++i) {
      if (i % 4 == 0) {
        call_helper(org, ids[i], "fail", R"({"reason":"payment_returned"})");
      } else if (i % 4 == 1) {
        call_helper(org, ids[i], "receive", R"({"amount":"5.00"})");
      } else {
        call_helper(org, ids[i], "receive");
      }
      std::this_thread::sleep_for(kBetweenCalls);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  kill_and_restart("settlement");
  payer.join();
  std::string expected_balance = before;
  for (int i = 0; i < kBatchSize; ++i) {
    const auto& id = ids[i];
    const auto expected = i % 4 == 0 ? "failed" : "settled";
    ASSERT_EQ(wait_for_collection(http(), org.test_key, id, kTerminal, kRecoveryTimeout), expected)
        << id;
    EXPECT_EQ(events_of(id), std::string("collection.received,collection.") + expected) << id;
    const auto collection = http().get("/v1/collections/" + id, with_key(org.test_key)).json();
    if (i % 4 == 0) {
      EXPECT_EQ(count("SELECT count(*) FROM journal_entries WHERE resource_id = '" + id + "'"), 0);
      continue;
    }
    const std::string credited = collection["settled_amount"].GetString();
    EXPECT_EQ(db().scalar("SELECT string_agg(e.kind || ':' || trim_scale(p.amount)::text, ',') "
                          "FROM journal_entries e JOIN journal_postings p ON p.entry_id = e.id "
                          "AND p.account = 'available' WHERE e.resource_id = '" +
                          id + "'"),
              "credit:" + db().scalar("SELECT trim_scale(" + credited + "::numeric)::text"))
        << id;
    expected_balance = add_amounts(expected_balance, credited);
  }
  EXPECT_EQ(compare_amounts(usdc_available(http(), org.test_key), expected_balance), 0);
  EXPECT_EQ(count("SELECT count(*) FROM collection_provider_events WHERE outcome IS DISTINCT "
                  "FROM 'applied'"),
            0);
  expect_ledger_consistent();
}

TEST_F(CollectionRecovery, KillNineExpiryMidStreamExpiresEachOnce) {
  const auto org = stack_->create_organization();
  // An endpoint subscribes, so each expiry event goes through the outbox to the webhook worker
  // (events no endpoint wants are not published at all). Nothing listens there: deliveries are
  // recorded and retried, which is all this test looks at.
  ASSERT_EQ(
      http()
          .post("/v1/webhooks",
                R"({"url":"https://127.0.0.1:9/collections","events":["collection.expired"]})",
                with_key(org.test_key))
          .status,
      201);
  const auto ids = create_batch(org);
  std::thread clock([&] {
    for (const auto& id : ids) {
      call_helper(org, id, "expire");
      std::this_thread::sleep_for(kBetweenCalls);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill_and_restart("expiry");
  clock.join();
  for (const auto& id : ids) {
    ASSERT_EQ(wait_for_collection(http(), org.test_key, id, kTerminal, kRecoveryTimeout), "expired")
        << id;
    EXPECT_EQ(events_of(id), "collection.expired") << id;
    EXPECT_EQ(count("SELECT count(*) FROM resource_transitions WHERE resource_id = '" + id +
                    "' AND to_status = 'expired'"),
              1);
  }
  // Every expiry event was published and fanned out once (the webhook worker consumed them all).
  EXPECT_EQ(wait_for_value(db(),
                           "SELECT count(*) FROM outbox WHERE topic = 'events' AND consumed_at IS "
                           "NULL",
                           "0", kRecoveryTimeout),
            "0");
  EXPECT_EQ(db().scalar("SELECT count(*) || '/' || count(DISTINCT event_id) FROM "
                        "webhook_deliveries WHERE org_id = '" +
                        org.id + "' AND event_type = 'collection.expired'"),
            std::to_string(kBatchSize) + "/" + std::to_string(kBatchSize));
  expect_ledger_consistent();
}

// Rewinding the settlement group on both collection topics re-applies every notification and
// settlement message: nothing changes.
TEST_F(CollectionRecovery, ReplayingCollectionTopicsFromZeroChangesNothing) {
  const auto org = stack_->create_organization();
  const auto ids = create_batch(org);
  for (int i = 0; i < kBatchSize; ++i) {
    call_helper(org, ids[i], i % 5 == 0 ? "fail" : "receive");
  }
  for (const auto& id : ids) {
    ASSERT_NE(wait_for_collection(http(), org.test_key, id, {"settled", "failed"}), "") << id;
  }
  // An unknown reference and a late payment are part of what is replayed.
  call_helper(org, ids[1], "receive", R"({"reference":"no such reference"})");
  call_helper(org, ids[2], "receive");
  ASSERT_EQ(wait_for_value(
                db(), "SELECT count(*) FROM collection_provider_events WHERE outcome IS NULL", "0"),
            "0");
  const auto snapshot = [&] {
    return db().scalar(
        "SELECT (SELECT count(*) FROM events) || '/' || "
        "(SELECT count(*) FROM resource_transitions) || '/' || "
        "(SELECT count(*) FROM journal_entries) || '/' || "
        "(SELECT string_agg(id || outcome || coalesce(collection_id, '-'), ',' ORDER BY id) "
        " FROM collection_provider_events) || '/' || "
        "(SELECT string_agg(id || status || coalesce(settled_amount::text, '-'), ',' ORDER BY id) "
        " FROM collections) || '/' || "
        "(SELECT string_agg(org_id || mode || asset || available || held, ',' "
        " ORDER BY org_id, mode, asset) FROM balances)");
  };
  const auto before = snapshot();
  const std::vector<std::string> topics{"collections.provider_events", "collections.received"};
  stack_->stop("settlement");
  for (const auto& topic : topics) {
    EXPECT_GT(reset_to_offset_zero(*stack_, topic), 0) << topic << " has nothing to replay";
  }
  stack_->start("settlement");
  for (const auto& topic : topics) {
    EXPECT_EQ(lag_after_replay(*stack_, topic), "0\n") << topic << " was not replayed to the end";
  }
  EXPECT_EQ(snapshot(), before);
  expect_ledger_consistent();
}

}  // namespace
}  // namespace payrail::testing
