// Test mode's simulated delays (a chain confirmation, a partner's result) are due a fixed time
// after an event recorded in Postgres: a batch waits once, until its last message is due.
#pragma once

#include <functional>

#include "infra/runtime/worker.h"

namespace payrail::workers::settlement {

// `remaining_ms` answers, in one transaction for the whole batch, how long until a message is
// due (0 when due); the wait is bounded by `delay_ms`. Returns the transaction's failure, after
// which every message of the batch has been set to retry.
model::Status wait_until_due(
    infra::runtime::WorkerContext& context, infra::runtime::Batch& batch, long delay_ms,
    const std::function<long(pqxx::work&, const topics::Envelope&)>& remaining_ms);

}  // namespace payrail::workers::settlement
