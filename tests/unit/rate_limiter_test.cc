// The shared rate limiter with its bucket in memory (the same arithmetic as the SQL lease in
// infra/store/organizations/rate_limits.cc) and a simulated clock: several limiters ("API
// processes") leasing from one bucket never accept more than burst + per_second * t + N *
// lease_tokens, a throttled bucket is not asked once per refused request, unspent leases expire,
// Retry-After is honest, and an unreachable bucket is an error rather than a free pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "api/middleware/rate_limiter.h"

namespace payrail::api {
namespace {

using Clock = std::chrono::steady_clock;
using infra::store::rate_limits::Lease;

class SharedBucket {
 public:
  SharedBucket(double per_second, double burst, const Clock::time_point& now)
      : per_second_(per_second), burst_(burst), tokens_(burst), refilled_at_(now), now_(now) {}

  LeaseFunction lease_function() {
    return [this](const std::string&, int wanted) -> model::Result<Lease> {
      ++leases;
      const double elapsed = std::chrono::duration<double>(now_ - refilled_at_).count();
      const double refilled = std::min(burst_, tokens_ + per_second_ * std::max(0.0, elapsed));
      const int granted = std::min(wanted, static_cast<int>(std::floor(refilled)));
      tokens_ = refilled - granted;
      refilled_at_ = now_;
      return Lease{granted, tokens_};
    };
  }
  int leases = 0;

 private:
  double per_second_;
  double burst_;
  double tokens_;
  Clock::time_point refilled_at_;
  const Clock::time_point& now_;
};

constexpr int kPerSecond = 100;
constexpr int kBurst = 200;
constexpr int kLease = 10;

TEST(SharedRateLimit, TwoProcessesTogetherStayWithinTheBound) {
  Clock::time_point now{};
  SharedBucket bucket(kPerSecond, kBurst, now);
  const RateLimitOptions options{kPerSecond, kBurst, kLease};
  RateLimiter first(options, bucket.lease_function());
  RateLimiter second(options, bucket.lease_function());
  long accepted = 0;
  long requests = 0;
  // 10 simulated seconds; every millisecond each process receives 3 requests (6000/s offered).
  for (int millisecond = 1; millisecond <= 10000; ++millisecond) {
    now += std::chrono::milliseconds(1);
    for (int i = 0; i < 3; ++i) {
      for (auto* limiter : {&first, &second}) {
        ++requests;
        accepted += limiter->take("org_1/test", now).value().allowed ? 1 : 0;
      }
    }
    const double seconds = millisecond / 1000.0;
    ASSERT_LE(accepted, kBurst + kPerSecond * seconds + 2 * kLease) << "at " << millisecond;
  }
  // Not starved either: close to what one bucket allows (a per-process limit would allow twice).
  EXPECT_GE(accepted, kBurst + kPerSecond * 10 - 2 * kLease);
  // Leases, not one database write per request.
  EXPECT_LE(bucket.leases, requests / 20);
}

TEST(SharedRateLimit, AThrottledBucketIsNotAskedForEveryRefusal) {
  Clock::time_point now{};
  SharedBucket bucket(kPerSecond, kBurst, now);
  RateLimiter limiter({kPerSecond, kBurst, kLease}, bucket.lease_function());
  while (limiter.take("k", now).value().allowed) {
  }
  const int leases = bucket.leases;
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(limiter.take("k", now).value().allowed);
  EXPECT_EQ(bucket.leases, leases);
  // A lease's worth of time later (0.1 s) it asks again and gets a lease's worth.
  now += std::chrono::milliseconds(100);
  int allowed = 0;
  while (limiter.take("k", now).value().allowed) ++allowed;
  EXPECT_EQ(allowed, kLease);
}

TEST(SharedRateLimit, UnspentLeasedTokensExpire) {
  Clock::time_point now{};
  SharedBucket bucket(0.001, 20, now);  // practically no refill
  RateLimiter holder({1, 20, 10}, bucket.lease_function());
  RateLimiter other({1, 20, 10}, bucket.lease_function());
  ASSERT_TRUE(holder.take("k", now).value().allowed);  // leases 10, spends 1
  ASSERT_TRUE(other.take("k", now).value().allowed);   // leases the other 10
  now += std::chrono::seconds(2);  // the holder's 9 unspent tokens are past their lifetime
  EXPECT_FALSE(holder.take("k", now).value().allowed);
  EXPECT_EQ(bucket.leases, 3);
}

TEST(SharedRateLimit, RetryAfterIsWhenTheNextTokenArrives) {
  Clock::time_point now{};
  SharedBucket bucket(1, 3, now);  // one token a second
  RateLimiter limiter({1, 3, 1}, bucket.lease_function());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(limiter.take("k", now).value().allowed);
  const auto refused = limiter.take("k", now).value();
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_seconds, 1);
  now += std::chrono::milliseconds(500);
  EXPECT_FALSE(limiter.take("k", now).value().allowed);
  now += std::chrono::milliseconds(500);
  EXPECT_TRUE(limiter.take("k", now).value().allowed);
}

TEST(SharedRateLimit, HeadersCountTheSharedBucketAndTheLease) {
  Clock::time_point now{};
  SharedBucket bucket(kPerSecond, kBurst, now);
  RateLimiter limiter({kPerSecond, kBurst, kLease}, bucket.lease_function());
  const auto first = limiter.take("k", now).value();
  EXPECT_EQ(first.limit, kPerSecond);
  EXPECT_EQ(first.remaining, kBurst - 1);
}

TEST(SharedRateLimit, AnUnreachableBucketIsAnErrorNotAFreePass) {
  RateLimiter limiter({kPerSecond, kBurst, kLease}, [](const std::string&, int) {
    return model::Result<Lease>(
        model::Error::make(model::ErrorCode::service_unavailable, "The database is unavailable."));
  });
  const auto taken = limiter.take("k");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, model::ErrorCode::service_unavailable);
}

TEST(SharedRateLimit, DefaultLeaseIsATenthOfASecond) {
  EXPECT_EQ(default_lease_tokens(100, 200), 10);
  EXPECT_EQ(default_lease_tokens(5, 10), 1);
  EXPECT_EQ(default_lease_tokens(10000, 50), 50);
}

}  // namespace
}  // namespace payrail::api
