#include "workers/expiry/expire.h"

#include "infra/store/collections/collections.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/organizations/rate_limits.h"
#include "infra/store/outbox/retention.h"

namespace payrail::workers::expiry {
namespace {

constexpr int kBatchesPerPassMax = 100;

template <class Purge>
model::Result<long> drain(Purge&& purge, long batch_max = kBatchMax) {
  long total = 0;
  for (int batch = 0; batch < kBatchesPerPassMax; ++batch) {
    auto deleted = purge();
    if (!deleted.ok()) return deleted.error();
    total += *deleted;
    if (*deleted < batch_max) break;
  }
  return total;
}

}  // namespace

model::Result<ExpiryCounts> expire_once(infra::pg::Pool& pool) {
  ExpiryCounts counts;
  auto keys = drain([&] { return infra::store::idempotency::purge_expired(pool, kBatchMax); });
  if (!keys.ok()) return keys.error();
  counts.idempotency_keys = *keys;
  auto rows = drain([&] { return infra::store::outbox::purge_consumed(pool, kBatchMax); });
  if (!rows.ok()) return rows.error();
  counts.outbox_rows = *rows;
  auto buckets = drain([&] {
    return infra::store::rate_limits::purge_idle(pool, kRateLimitBucketIdleSeconds, kBatchMax);
  });
  if (!buckets.ok()) return buckets.error();
  counts.rate_limit_buckets = *buckets;
  return counts;
}

model::Result<long> expire_collections(infra::pg::Pool& pool, int test_clock_offset_s) {
  return drain(
      [&]() -> model::Result<long> {
        auto expired =
            infra::store::collections::expire_due(pool, kCollectionBatchMax, test_clock_offset_s);
        if (!expired.ok()) return expired.error();
        return static_cast<long>(*expired);
      },
      kCollectionBatchMax);
}

}  // namespace payrail::workers::expiry
