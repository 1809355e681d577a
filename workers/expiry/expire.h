// Time-based work, by database time: unpaid collections past expires_at (every
// PAYRAIL_EXPIRY_INTERVAL_MS), idempotency keys past retention (72 h, more than the 24 h the
// contract promises), consumed outbox rows older than 7 days and rate-limit buckets idle for an
// hour (full by then, like a missing one) (every minute).
#pragma once

#include "infra/plumbing/pg/pool.h"

namespace payrail::workers::expiry {

constexpr int kBatchMax = 1000;
// Each expiry is a transition with its event: smaller batches keep each transaction short.
constexpr int kCollectionBatchMax = 200;
constexpr int kRateLimitBucketIdleSeconds = 3600;

struct ExpiryCounts {
  long idempotency_keys = 0;
  long outbox_rows = 0;
  long rate_limit_buckets = 0;
};

// One retention pass; each kind is deleted in bounded batches until none is left or the pass
// bound hits.
model::Result<ExpiryCounts> expire_once(infra::pg::Pool& pool);

// One collection pass: expires unpaid collections whose expires_at has passed (test-mode ones
// against now() + test_clock_offset_s), one transaction per batch of kCollectionBatchMax, until
// none is due or the pass bound hits. Returns how many expired.
model::Result<long> expire_collections(infra::pg::Pool& pool, int test_clock_offset_s);

}  // namespace payrail::workers::expiry
