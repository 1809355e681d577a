#include "schemas/model/webhooks/retry_schedule.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace payrail::model {

std::int64_t jittered_delay_ms(std::int64_t base_ms, double unit_random) {
  const double clamped = std::clamp(unit_random, 0.0, 1.0);
  const double factor = 1.0 - kRetryJitterFraction + 2.0 * kRetryJitterFraction * clamped;
  const auto low = static_cast<std::int64_t>(std::ceil(base_ms * (1.0 - kRetryJitterFraction)));
  const auto high = static_cast<std::int64_t>(std::floor(base_ms * (1.0 + kRetryJitterFraction)));
  return std::clamp(static_cast<std::int64_t>(std::llround(base_ms * factor)), low, high);
}

std::optional<std::int64_t> next_retry_delay_ms(std::span<const std::int64_t> schedule_ms,
                                                int failed_attempts_in_round, double unit_random) {
  if (failed_attempts_in_round < 1) return std::nullopt;
  const auto index = static_cast<std::size_t>(failed_attempts_in_round - 1);
  if (index >= schedule_ms.size()) return std::nullopt;
  return jittered_delay_ms(schedule_ms[index], unit_random);
}

double unit_random() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

}  // namespace payrail::model
