// Test mode's simulated delays (a chain confirmation, a partner's result) fall due a fixed time
// after an event recorded in Postgres. A batch's messages are applied in waves as they fall due:
// wait for the earliest, apply in one transaction every message due within kWaveWindow of it,
// and so on. A message waits at most kWaveWindow beyond its own due time, and a batch spanning
// t milliseconds of due times takes at most t / kWaveWindow + 1 transactions.
#pragma once

#include <chrono>
#include <functional>

#include "infra/runtime/worker.h"

namespace payrail::workers::settlement {

inline constexpr std::chrono::milliseconds kWaveWindow{20};

// `remaining_ms` answers, in one transaction for the whole batch, how long until a message is
// due (0 when due); each wait is bounded by `delay_ms`. A failure of that transaction sets every
// message of the batch to retry.
void apply_when_due(infra::runtime::WorkerContext& context, infra::runtime::Batch& batch,
                    long delay_ms,
                    const std::function<long(pqxx::work&, const topics::Envelope&)>& remaining_ms,
                    const infra::runtime::ApplyOne& apply);

}  // namespace payrail::workers::settlement
