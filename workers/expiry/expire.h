// Time-based work, by database time: idempotency keys past retention (72 h, more than the 24 h
// the contract promises) and consumed outbox rows older than 7 days. (Collections will expire
// here too.)
#pragma once

#include "infra/pg/pool.h"

namespace payrail::workers::expiry {

constexpr int kBatchMax = 1000;

struct ExpiryCounts {
  long idempotency_keys = 0;
  long outbox_rows = 0;
};

// One pass; each kind is deleted in bounded batches until none is left or the pass bound hits.
model::Result<ExpiryCounts> expire_once(infra::pg::Pool& pool);

}  // namespace payrail::workers::expiry
