// The shared rate-limit bucket in real PostgreSQL: a new bucket starts full, leases refill by
// database time, and concurrent leases from many connections never grant one token twice (the
// row lock serializes them).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/organizations/rate_limits.h"
#include "tests/support/database.h"

namespace payrail::testing {
namespace {

namespace rate_limits = infra::store::rate_limits;

class RateLimitBuckets : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { database_ = new TestDatabase(); }
  static void TearDownTestSuite() { delete database_; }
  inline static TestDatabase* database_ = nullptr;
};

TEST_F(RateLimitBuckets, ANewBucketStartsFullAndLeasesWholeTokens) {
  infra::pg::Pool pool({.url = database_->url(), .max_connections = 1});
  const auto first = rate_limits::lease(pool, "org_a/test", 10, 0.001, 25).value();
  EXPECT_EQ(first.granted, 10);
  EXPECT_NEAR(first.tokens_left, 15, 0.01);
  EXPECT_EQ(rate_limits::lease(pool, "org_a/test", 10, 0.001, 25).value().granted, 10);
  EXPECT_EQ(rate_limits::lease(pool, "org_a/test", 10, 0.001, 25).value().granted, 5);
  const auto empty = rate_limits::lease(pool, "org_a/test", 10, 0.001, 25).value();
  EXPECT_EQ(empty.granted, 0);
  EXPECT_LT(empty.tokens_left, 1);
  // Another bucket is untouched.
  EXPECT_EQ(rate_limits::lease(pool, "org_a/live", 10, 0.001, 25).value().granted, 10);
}

// A lease commits without waiting for its WAL flush, and that setting stays with its own
// transaction: the connection's next transaction, a payout's create among them, waits as before.
TEST_F(RateLimitBuckets, ALeaseLeavesTheConnectionsCommitsDurable) {
  infra::pg::Pool pool({.url = database_->url(), .max_connections = 1});
  ASSERT_EQ(rate_limits::lease(pool, "org_d/test", 1, 1, 5).value().granted, 1);
  const auto setting = pool.autocommit([](pqxx::nontransaction& tx) -> model::Result<std::string> {
    return tx.exec1("SHOW synchronous_commit")[0].as<std::string>();
  });
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(*setting, "on");
}

TEST_F(RateLimitBuckets, LeasesRefillByTheTimeElapsed) {
  infra::pg::Pool pool({.url = database_->url(), .max_connections = 1});
  ASSERT_EQ(rate_limits::lease(pool, "org_b/test", 50, 1000, 50).value().granted, 50);
  database_->scalar(
      "UPDATE rate_limit_buckets SET refilled_at = refilled_at - interval '20 milliseconds' "
      "WHERE bucket_key = 'org_b/test' RETURNING 1");
  const auto refilled = rate_limits::lease(pool, "org_b/test", 50, 1000, 50).value();
  EXPECT_GE(refilled.granted, 20);  // at least 20 ms at 1000/s
  EXPECT_LE(refilled.granted, 50);  // never beyond the burst
}

TEST_F(RateLimitBuckets, ConcurrentLeasesNeverGrantATokenTwice) {
  infra::pg::Pool pool({.url = database_->url(), .max_connections = 8});
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      for (int lease = 0; lease < 40; ++lease) {
        granted += rate_limits::lease(pool, "org_c/test", 3, 0.0001, 100).value().granted;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(granted.load(), 100);  // 320 leases asked for 960 tokens; the bucket held 100
}

TEST_F(RateLimitBuckets, IdleBucketsArePurged) {
  infra::pg::Pool pool({.url = database_->url(), .max_connections = 1});
  ASSERT_TRUE(rate_limits::lease(pool, "org_d/test", 1, 1, 10).ok());
  database_->scalar(
      "UPDATE rate_limit_buckets SET refilled_at = now() - interval '2 hours' "
      "WHERE bucket_key = 'org_d/test' RETURNING 1");
  EXPECT_GE(rate_limits::purge_idle(pool, 3600, 1000).value(), 1);
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM rate_limit_buckets WHERE bucket_key = "
                              "'org_d/test'"),
            "0");
}

}  // namespace
}  // namespace payrail::testing
