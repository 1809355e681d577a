// Per-organization-and-mode token buckets (docs/api.md: 100 requests/s, burst 200),
// shared by all keys of the organization in this API process. With several API processes
// behind a load balancer each enforces the limit; set PAYRAIL_RATE_LIMIT_PER_SECOND to the
// share of each (docs/operations.md).
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace payrail::api {

struct RateDecision {
  bool allowed = true;
  int limit = 0;
  int remaining = 0;
  int retry_after_seconds = 0;
};

class RateLimiter {
 public:
  RateLimiter(int per_second, int burst);
  RateDecision take(const std::string& bucket_key,
                    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point refilled_at;
  };
  void evict_idle(std::chrono::steady_clock::time_point now);

  static constexpr std::size_t kBucketsMax = 100000;
  double per_second_;
  double burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace payrail::api
