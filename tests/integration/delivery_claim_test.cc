// The webhook delivery loop's claim reads only the deliveries it claims, even when the table's
// statistics are older than its backlog, against a real database: 600 deliveries are due in a
// table never analyzed, and a claim of 8 through the delivery loop's pool
// (webhooks::delivery_pool_options) reads a handful of entries of webhook_deliveries_due, where a
// session planned with the defaults reads all 600 (a bitmap scan, then a sort).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/webhooks/webhook_deliveries.h"
#include "tests/support/database.h"
#include "workers/webhooks/delivery_loop.h"

namespace payrail::testing {
namespace {

namespace deliveries = infra::store::webhook_deliveries;

constexpr int kDue = 6000;
constexpr int kClaimed = 8;

class DeliveryClaim : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    database_->add_organization("org_claim");
    // This database is the test's own: no ANALYZE may give the table statistics meanwhile.
    database_->scalar("ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)");
    database_->scalar(
        "INSERT INTO webhook_endpoints (id, org_id, mode, url, events, secret_ciphertext) VALUES "
        "('whe_claim', 'org_claim', 'test', 'https://hooks.example.com/claim', "
        "'{payout.created}', decode(repeat('ab', 40), 'hex')) RETURNING 1");
    database_->scalar(
        "INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, "
        "payload) SELECT 'evt_claim_' || g, 'org_claim', 'test', 'payout.created', 'payout', "
        "'po_claim_' || g, 1, '{}' FROM generate_series(1, " +
        std::to_string(kDue) + ") g RETURNING 1");
    database_->scalar(
        "INSERT INTO webhook_deliveries (id, org_id, mode, endpoint_id, event_id, event_type, "
        "next_attempt_at) SELECT 'whd_claim_' || g, 'org_claim', 'test', 'whe_claim', "
        "'evt_claim_' || g, 'payout.created', now() - interval '1 minute' + g * interval '1 ms' "
        "FROM generate_series(1, " +
        std::to_string(kDue) + ") g RETURNING 1");
  }
  static void TearDownTestSuite() { delete database_; }

  // Entries of the claim's index read so far, as the statistics collector has them.
  static long due_index_reads() {
    return std::stol(
        database_->scalar("SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = "
                          "'webhook_deliveries_due'"));
  }

  // Claims through a pool of its own and closes it, which sends its session's statistics; returns
  // how many index entries the claim read.
  static long claim_reads(infra::pg::PoolOptions options) {
    const auto before = due_index_reads();
    {
      infra::pg::Pool pool(std::move(options));
      const auto claimed = deliveries::claim(pool, "claim-test", 60000, kClaimed);
      EXPECT_TRUE(claimed.ok());
      EXPECT_EQ(claimed.ok() ? claimed->size() : 0, static_cast<std::size_t>(kClaimed));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (due_index_reads() == before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return due_index_reads() - before;
  }

  inline static TestDatabase* database_ = nullptr;
};

TEST_F(DeliveryClaim, ReadsOnlyWhatItClaimsWhateverTheStatisticsSay) {
  ASSERT_EQ(database_->scalar("SELECT count(*) FROM pg_stats WHERE tablename = "
                              "'webhook_deliveries'"),
            "0")
      << "the table was analyzed: the test needs statistics older than its rows";
  // The defaults read every due delivery: what the delivery pool's settings are for.
  const auto plain = claim_reads({.url = database_->url(), .max_connections = 1});
  ASSERT_GE(plain, kDue - kClaimed) << "the defaults no longer plan the claim as a bitmap scan";

  workers::webhooks::LoopOptions loop;
  loop.senders = 1;
  const auto configured =
      claim_reads(workers::webhooks::delivery_pool_options(database_->url(), loop));
  EXPECT_GT(configured, 0);
  EXPECT_LE(configured, 2 * kClaimed + 8);  // those it claims, and those claimed before it
}

}  // namespace
}  // namespace payrail::testing
