// Per-organization-and-mode token buckets (docs/api.md: 100 requests/s, burst 200), shared by
// all keys of the organization AND by every API process: the bucket lives in PostgreSQL
// (rate_limit_buckets) and each process leases tokens from it in small batches, so N processes
// do not multiply the limit and no request but one per lease writes to the database.
//
// The bound (docs/design.md, "Rate limits"): over any interval of W seconds the processes
// together accept at most burst + per_second * W + N * lease_tokens requests of a bucket; a
// process's unspent leased tokens are dropped after lease_lifetime, so they can never pile up.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "infra/store/organizations/rate_limits.h"
#include "schemas/model/common/result.h"

namespace payrail::api {

struct RateDecision {
  bool allowed = true;
  int limit = 0;
  int remaining = 0;  // the shared bucket as of this process's last lease, plus its own tokens
  int retry_after_seconds = 0;
};

struct RateLimitOptions {
  int per_second = 100;
  int burst = 200;
  int lease_tokens = 10;  // taken from the shared bucket per lease (at most burst)
  std::chrono::milliseconds lease_lifetime{1000};
};

// The default lease: a tenth of a second's worth of requests, at least 1.
int default_lease_tokens(int per_second, int burst);

// Takes up to `wanted` tokens from the shared bucket `key` (rate_limits::lease in production; a
// bucket in memory in unit tests).
using LeaseFunction = std::function<model::Result<infra::store::rate_limits::Lease>(
    const std::string& key, int wanted)>;

class RateLimiter {
 public:
  RateLimiter(RateLimitOptions options, LeaseFunction lease);
  // An error only when the shared bucket cannot be reached (the request answers 503).
  model::Result<RateDecision> take(
      const std::string& bucket_key,
      std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    std::mutex mutex;
    int tokens = 0;  // leased, unspent
    Clock::time_point expires_at;
    double shared_left = 0;
    Clock::time_point empty_until;  // the bucket was empty: no lease before this
    Clock::time_point retry_at;     // when the bucket holds one token again
    Clock::time_point used_at;
  };
  std::shared_ptr<Slot> slot_for(const std::string& bucket_key, Clock::time_point now);
  model::Result<RateDecision> lease_and_take(const std::string& bucket_key, Slot& slot,
                                             Clock::time_point now);
  RateDecision allow(Slot& slot) const;
  RateDecision refuse(const Slot& slot, Clock::time_point now) const;

  static constexpr std::size_t kSlotsMax = 100000;
  RateLimitOptions options_;
  LeaseFunction lease_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace payrail::api
