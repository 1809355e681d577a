// The retry schedule (docs/api.md "Events and webhooks"): after a failed attempt the
// next one waits the schedule's next delay, jittered by ±10% so that receivers recovering from
// an outage are not hit by every retry at the same instant. After the last delay's attempt fails
// the delivery is failed: a schedule of n delays allows n + 1 attempts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace payrail::model {

constexpr double kRetryJitterFraction = 0.10;

// `base_ms` scaled by a factor in [0.9, 1.1] chosen by `unit_random` in [0, 1).
std::int64_t jittered_delay_ms(std::int64_t base_ms, double unit_random);

// The delay before the next attempt once `failed_attempts_in_round` attempts of the current
// round have failed (1 after the first failure); nullopt when the schedule is exhausted.
std::optional<std::int64_t> next_retry_delay_ms(std::span<const std::int64_t> schedule_ms,
                                                int failed_attempts_in_round, double unit_random);

// Uniform in [0, 1) from a per-thread generator (jitter needs no cryptographic strength).
double unit_random();

}  // namespace payrail::model
