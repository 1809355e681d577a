#pragma once

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::outbox {

constexpr int kConsumedRetentionDays = 7;

// Deletes outbox rows consumed more than kConsumedRetentionDays ago (at most batch_max).
// Unconsumed rows are never deleted: they are what the relay re-drives.
model::Result<long> purge_consumed(pg::Pool& pool, int batch_max);

}  // namespace payrail::infra::store::outbox
