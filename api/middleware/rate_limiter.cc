#include "api/middleware/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace payrail::api {

RateLimiter::RateLimiter(int per_second, int burst)
    : per_second_(per_second), burst_(std::max(burst, 1)) {}

RateDecision RateLimiter::take(const std::string& bucket_key,
                               std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (buckets_.size() >= kBucketsMax && !buckets_.contains(bucket_key)) evict_idle(now);
  auto [it, inserted] = buckets_.try_emplace(bucket_key, Bucket{burst_, now});
  auto& bucket = it->second;
  const double elapsed_seconds = std::chrono::duration<double>(now - bucket.refilled_at).count();
  bucket.tokens = std::min(burst_, bucket.tokens + elapsed_seconds * per_second_);
  bucket.refilled_at = now;
  RateDecision decision;
  decision.limit = static_cast<int>(per_second_);
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    decision.remaining = static_cast<int>(bucket.tokens);
    return decision;
  }
  decision.allowed = false;
  decision.retry_after_seconds =
      std::max(1, static_cast<int>(std::ceil((1.0 - bucket.tokens) / per_second_)));
  return decision;
}

void RateLimiter::evict_idle(std::chrono::steady_clock::time_point now) {
  // A bucket that has refilled completely carries no state worth keeping.
  std::erase_if(buckets_, [&](const auto& entry) {
    const double idle_seconds =
        std::chrono::duration<double>(now - entry.second.refilled_at).count();
    return entry.second.tokens + idle_seconds * per_second_ >= burst_;
  });
}

}  // namespace payrail::api
