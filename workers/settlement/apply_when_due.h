// Test mode's simulated delays (a chain confirmation, a partner's result) fall due a fixed time
// after an event recorded in Postgres. A batch's messages are applied in waves as they fall due:
// wait for the earliest, apply in one transaction every message due within kWaveWindow of it,
// and so on. A message waits at most kWaveWindow beyond its own due time, and a batch spanning
// t milliseconds of due times takes at most t / kWaveWindow + 1 transactions.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "infra/programs/runtime/worker.h"
#include "infra/store/sql/sql.h"

namespace payrail::workers::settlement {

inline constexpr std::chrono::milliseconds kWaveWindow{20};

// `remaining_ms` answers, in one statement for the whole batch, how long until each message's
// resource is due, by resource id (0 or no entry when due); each wait is bounded by `delay_ms`.
// A failure of that statement sets every message of the batch to retry.
using RemainingDelaysMs = std::function<infra::store::RemainingDelays(
    pqxx::transaction_base& tx, const std::vector<std::string>& resource_ids)>;
void apply_when_due(infra::runtime::WorkerContext& context, infra::runtime::Batch& batch,
                    long delay_ms, const RemainingDelaysMs& remaining_ms,
                    const infra::runtime::ApplyOne& apply);

}  // namespace payrail::workers::settlement
