#include "workers/settlement/wait_until_due.h"

#include <algorithm>
#include <thread>

namespace payrail::workers::settlement {

model::Status wait_until_due(
    infra::runtime::WorkerContext& context, infra::runtime::Batch& batch, long delay_ms,
    const std::function<long(pqxx::work&, const topics::Envelope&)>& remaining_ms) {
  auto latest = context.pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    long longest_ms = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch.active(i)) longest_ms = std::max(longest_ms, remaining_ms(tx, batch.message(i)));
    }
    return longest_ms;
  });
  if (!latest.ok()) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch.active(i)) batch.retry(i);
    }
    return latest.error();
  }
  const long wait_ms = std::min(*latest, delay_ms);
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  return model::ok_status();
}

}  // namespace payrail::workers::settlement
