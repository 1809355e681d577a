// collections.received -> settled: the received amount converted to USDC at the rate GET
// /v1/rates shows (rounded down to 6 decimals) and credited to the organization's balance.
#pragma once

#include "infra/adapters/rates/rate_source.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::settlement {

// PROCESSING IS IDEMPOTENT: guarded by the collection's status and the consumed mark; the credit
// itself can be applied only once per collection (the ledger). A failure or return notified
// before settlement is applied first and wins. Without a rate source for the collection's mode
// the message is retried later and nothing changes.
model::Status settle_collection(const infra::rates::RateSources& rates, pqxx::work& tx,
                                const topics::Envelope& message);

}  // namespace payrail::workers::settlement
