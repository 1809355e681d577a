#include "workers/settlement/apply_when_due.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace payrail::workers::settlement {
namespace {

using Clock = std::chrono::steady_clock;

// When each active message falls due, on this process's clock; nullopt when the read failed
// (every message is then set to retry).
std::optional<std::vector<Clock::time_point>> due_times(infra::runtime::WorkerContext& context,
                                                        infra::runtime::Batch& batch, long delay_ms,
                                                        const RemainingDelaysMs& remaining_ms) {
  std::vector<std::string> resource_ids;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i)) resource_ids.push_back(batch.message(i).resource_id);
  }
  // A read: no transaction needed (two round trips fewer).
  auto remaining = context.pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<infra::store::RemainingDelays> {
        return remaining_ms(tx, resource_ids);
      });
  if (!remaining.ok()) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch.active(i)) batch.retry(i);
    }
    return std::nullopt;
  }
  const auto now = Clock::now();
  std::vector<Clock::time_point> due;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto found = remaining->find(batch.message(i).resource_id);
    const long each_ms = found == remaining->end() ? 0 : std::min(found->second, delay_ms);
    due.push_back(now + std::chrono::milliseconds(each_ms));
  }
  return due;
}

}  // namespace

void apply_when_due(infra::runtime::WorkerContext& context, infra::runtime::Batch& batch,
                    long delay_ms, const RemainingDelaysMs& remaining_ms,
                    const infra::runtime::ApplyOne& apply) {
  const auto due = due_times(context, batch, delay_ms, remaining_ms);
  if (!due) return;
  std::vector<bool> applied(batch.size(), false);
  for (;;) {
    std::optional<Clock::time_point> earliest;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch.active(i) && !applied[i])
        earliest = std::min(earliest.value_or((*due)[i]), (*due)[i]);
    }
    if (!earliest) return;
    const auto wave_end = *earliest + kWaveWindow;
    auto latest_in_wave = *earliest;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch.active(i) && !applied[i] && (*due)[i] <= wave_end) {
        latest_in_wave = std::max(latest_in_wave, (*due)[i]);
      }
    }
    std::this_thread::sleep_until(latest_in_wave);
    const auto in_wave = [&](std::size_t i) { return !applied[i] && (*due)[i] <= latest_in_wave; };
    std::vector<bool> wave(batch.size(), false);
    for (std::size_t i = 0; i < batch.size(); ++i) wave[i] = batch.active(i) && in_wave(i);
    (void)infra::runtime::apply_each(context, batch, apply,
                                     [&](std::size_t i) { return static_cast<bool>(wave[i]); });
    for (std::size_t i = 0; i < batch.size(); ++i) applied[i] = applied[i] || wave[i];
  }
}

}  // namespace payrail::workers::settlement
