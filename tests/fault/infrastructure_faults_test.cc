// Infrastructure faults during a stream of payouts and worker traffic (issue 12): PostgreSQL
// stopped with `pg_ctl stop -m immediate` and restarted, the broker stopped for 30 s, and a TCP
// proxy between every process and PostgreSQL, and another between every process and the broker
// (which advertises the proxy's port, so no client bypasses it), that add latency and reset
// connections at random.
// While PostgreSQL is down the API answers 503 api_error, never hangs and never crashes; after
// each fault every process carries on by itself, every accepted payout reaches its terminal state
// exactly once and balances equal the journal. PostgreSQL here is a private cluster, so stopping
// it disturbs no other test.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "tests/support/fault_proxy.h"
#include "tests/support/payouts.h"
#include "tests/support/private_cluster.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr int kBatchSize = 30;
constexpr auto kBetweenCreates = std::chrono::milliseconds(50);

class InfrastructureFaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new PrivateCluster();
    proxy_ = new FaultProxy(cluster_->port());
    const int broker_port = free_port();
    broker_proxy_ = new FaultProxy(broker_port, free_port());
    const std::string broker_through_proxy = std::to_string(broker_proxy_->port());
    database_ = new TestDatabase(cluster_->url());
    const std::string through_proxy =
        "postgresql://payrail@127.0.0.1:" + std::to_string(proxy_->port()) + "/payrail";
    stack_ = new TestStack({.env = {{"PAYRAIL_DATABASE_URL", through_proxy},
                                    {"PAYRAIL_KAFKA_PORT", std::to_string(broker_port)},
                                    {"PAYRAIL_KAFKA_ADVERTISED_PORT", broker_through_proxy},
                                    {"PAYRAIL_KAFKA_BROKERS", "127.0.0.1:" + broker_through_proxy},
                                    {"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "2000"},
                                    {"PAYRAIL_SCREENING_WAIT_MS", "300"},
                                    {"PAYRAIL_DB_ACQUIRE_TIMEOUT_MS", "1000"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete database_;
    delete broker_proxy_;
    delete proxy_;
    delete cluster_;
  }

  struct Batch {
    TestOrganization org;
    std::map<std::string, std::string> expected;  // payout id -> terminal status
    std::multiset<int> statuses;                  // every answer the API gave
    std::mutex mutex;
    std::thread thread;
  };

  // Creates payouts in the background, each retried with its Idempotency-Key until the API
  // accepts it: every 3rd fails its broadcast, the rest complete.
  std::unique_ptr<Batch> start_batch() {
    auto batch = std::make_unique<Batch>();
    batch->org = stack_->create_organization();
    batch->thread = std::thread([raw = batch.get()] {
      for (int i = 0; i < kBatchSize; ++i) {
        const bool fails = i % 3 == 0;
        send_until_accepted(*raw, i, fails ? fail_trigger_address() : random_evm_address(),
                            fails ? "failed" : "completed");
        std::this_thread::sleep_for(kBetweenCreates);
      }
    });
    return batch;
  }

  static void send_until_accepted(Batch& batch, int index, const std::string& address,
                                  const std::string& expected) {
    const auto body = payout_body("1", "USDC", "polygon", address);
    for (int attempt = 0; attempt < 900; ++attempt) {
      const auto response =
          create_payout(stack_->http(), batch.org.test_key, "fault-" + std::to_string(index), body);
      {
        std::lock_guard lock(batch.mutex);
        batch.statuses.insert(response.status);
      }
      if (response.status == 503) {
        EXPECT_EQ(response.error_code(), "service_unavailable") << response.body;
      }
      if (response.status == 201 || response.status == 202) {
        std::lock_guard lock(batch.mutex);
        batch.expected[response.json()["id"].GetString()] = expected;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "payout " << index << " was never accepted";
  }

  void verify(Batch& batch) {
    batch.thread.join();
    // Only acceptances, "retry later" and an in-flight duplicate: never a 500.
    for (const int status : batch.statuses) {
      EXPECT_TRUE(status == 201 || status == 202 || status == 503 || status == 409)
          << "unexpected status " << status;
    }
    ASSERT_EQ(batch.expected.size(), static_cast<std::size_t>(kBatchSize));
    int completed = 0;
    for (const auto& [id, expected] : batch.expected) {
      EXPECT_EQ(wait_for_status(stack_->http(), batch.org.test_key, id, {expected},
                                std::chrono::seconds(120)),
                expected)
          << id;
      completed += expected == "completed";
      EXPECT_EQ(event_count(*database_, id, "payout.created"), 1) << id;
      EXPECT_EQ(event_count(*database_, id, "payout." + expected), 1) << id;
      EXPECT_EQ(database_->scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries "
                                  "WHERE resource_id = '" +
                                  id + "'"),
                std::string("hold,") + (expected == "completed" ? "settle" : "refund"))
          << id;
    }
    EXPECT_EQ(
        database_->scalar("SELECT count(*) FROM payouts WHERE org_id = '" + batch.org.id + "'"),
        std::to_string(kBatchSize));
    EXPECT_EQ(balance_of(*database_, batch.org.id, "test", "USDC"),
              std::to_string(1000000 - completed) + "/0");
    EXPECT_EQ(ledger_mismatch(*database_), "");
    for (const auto* role : {"api", "screening", "execution", "settlement", "expiry", "webhooks"}) {
      EXPECT_TRUE(stack_->process(role).running()) << role << " died";
    }
  }

  // Latency and random resets on one path (PostgreSQL or the broker) while a batch is created.
  void expect_invariants_through_faults(FaultProxy& proxy) {
    auto batch = start_batch();
    const int resets_before = proxy.resets();
    proxy.set_faults({.latency_max = std::chrono::milliseconds(20), .reset_per_mille = 15});
    std::this_thread::sleep_for(std::chrono::seconds(6));
    proxy.clear_faults();
    verify(*batch);
    EXPECT_GT(proxy.resets(), resets_before)
        << "the proxy never reset a connection: the test proved nothing";
  }

  static PrivateCluster* cluster_;
  static FaultProxy* proxy_;
  static FaultProxy* broker_proxy_;
  static TestDatabase* database_;
  static TestStack* stack_;
};
PrivateCluster* InfrastructureFaults::cluster_ = nullptr;
FaultProxy* InfrastructureFaults::proxy_ = nullptr;
FaultProxy* InfrastructureFaults::broker_proxy_ = nullptr;
TestDatabase* InfrastructureFaults::database_ = nullptr;
TestStack* InfrastructureFaults::stack_ = nullptr;

TEST_F(InfrastructureFaults, PostgresStoppedImmediatelyAndRestarted) {
  const auto reader = stack_->create_organization();
  auto batch = start_batch();
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  cluster_->stop_immediately();
  // Down: every request that needs the database is 503 api_error, answered (not hung). The
  // client's 30 s timeout would throw if the API hung.
  for (int i = 0; i < 5; ++i) {
    const auto response = stack_->http().get("/v1/payouts", with_key(reader.test_key));
    EXPECT_EQ(response.status, 503) << response.body;
    EXPECT_EQ(response.error_code(), "service_unavailable");
    EXPECT_NE(response.body.find("\"type\":\"api_error\""), std::string::npos);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  cluster_->start();
  verify(*batch);
}

TEST_F(InfrastructureFaults, BrokerStoppedForThirtySeconds) {
  auto batch = start_batch();
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  stack_->stop("broker");
  std::this_thread::sleep_for(std::chrono::seconds(30));
  stack_->start("broker");
  verify(*batch);
}

TEST_F(InfrastructureFaults, LatencyAndRandomResetsBetweenTheServicesAndPostgres) {
  expect_invariants_through_faults(*proxy_);
}

TEST_F(InfrastructureFaults, LatencyAndRandomResetsBetweenTheServicesAndTheBroker) {
  expect_invariants_through_faults(*broker_proxy_);
}

}  // namespace
}  // namespace payrail::testing
