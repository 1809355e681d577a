// The shared rate-limit buckets (rate_limit_buckets): one token bucket per organization and mode
// (or session subject) that every API process leases tokens from (api/middleware/rate_limiter.h).
#pragma once

#include <string_view>

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::rate_limits {

struct Lease {
  int granted = 0;         // tokens taken now (0: the bucket holds less than one)
  double tokens_left = 0;  // what the bucket holds after this lease
};

// Refills the bucket for the time since its last lease (`per_second`, at most `burst`; a new
// bucket starts full) and takes up to `wanted` whole tokens: one statement, one round trip,
// serialized per bucket by its row lock.
model::Result<Lease> lease(pg::Pool& pool, std::string_view bucket_key, int wanted,
                           double per_second, double burst);

// Deletes buckets untouched for `idle_seconds` (at most `batch_max`): a bucket idle for
// burst / per_second seconds is full, exactly as a missing one.
model::Result<long> purge_idle(pg::Pool& pool, int idle_seconds, int batch_max);

}  // namespace payrail::infra::store::rate_limits
