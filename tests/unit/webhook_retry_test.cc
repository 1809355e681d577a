// The retry schedule: the contract's default delays, n delays allow n + 1 attempts, ±10% jitter.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "infra/programs/config/config.h"
#include "schemas/model/webhooks/retry_schedule.h"

namespace payrail::infra::webhooks {
namespace {

// The schedule is the model's (schemas/model/webhooks/retry_schedule.h).
using model::jittered_delay_ms;
using model::next_retry_delay_ms;
using model::unit_random;

TEST(WebhookRetrySchedule, DefaultIsTheContractSchedule) {
  const std::vector<std::int64_t> contract{5000,    30000,    120000,   600000,   1800000,
                                           3600000, 10800000, 21600000, 43200000, 86400000};
  EXPECT_EQ(Config{}.webhook_retry_schedule_ms, contract);
}

TEST(WebhookRetrySchedule, NDelaysAllowNPlusOneAttempts) {
  const std::vector<std::int64_t> schedule{300, 600, 900};
  int attempts = 1;  // the first attempt needs no delay
  while (next_retry_delay_ms(schedule, attempts, 0.5)) ++attempts;
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(*next_retry_delay_ms(schedule, 1, 0.5), 300);
  EXPECT_EQ(*next_retry_delay_ms(schedule, 3, 0.5), 900);
  EXPECT_FALSE(next_retry_delay_ms(schedule, 0, 0.5));
  EXPECT_FALSE(next_retry_delay_ms(schedule, 4, 0.5));
  EXPECT_EQ(Config{}.webhook_retry_schedule_ms.size() + 1, 11u);  // about two days, 11 attempts
}

TEST(WebhookRetrySchedule, JitterStaysWithinTenPercent) {
  EXPECT_EQ(jittered_delay_ms(5000, 0.0), 4500);
  EXPECT_EQ(jittered_delay_ms(5000, 0.5), 5000);
  EXPECT_EQ(jittered_delay_ms(5000, 1.0), 5500);
  EXPECT_EQ(jittered_delay_ms(86400000, 0.0), 77760000);
  EXPECT_EQ(jittered_delay_ms(86400000, 1.0), 95040000);
  EXPECT_EQ(jittered_delay_ms(0, 0.7), 0);
  EXPECT_EQ(jittered_delay_ms(5000, -3.0), 4500);  // out-of-range randomness is clamped
  EXPECT_EQ(jittered_delay_ms(5000, 7.0), 5500);
}

TEST(WebhookRetrySchedule, RandomJitterCoversTheBandAndNeverLeavesIt) {
  std::int64_t lowest = 1 << 30;
  std::int64_t highest = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto delay = *next_retry_delay_ms(std::vector<std::int64_t>{30000}, 1, unit_random());
    ASSERT_GE(delay, 27000);
    ASSERT_LE(delay, 33000);
    lowest = std::min(lowest, delay);
    highest = std::max(highest, delay);
  }
  EXPECT_LT(lowest, 27300);  // both ends of the band are reached: the jitter is real
  EXPECT_GT(highest, 32700);
}

TEST(WebhookRetrySchedule, CompressedScheduleFromEnvironment) {
  setenv("PAYRAIL_WEBHOOK_RETRY_SCHEDULE", "300ms,600ms,1s", 1);
  auto config = load_config_from_environment();
  unsetenv("PAYRAIL_WEBHOOK_RETRY_SCHEDULE");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->webhook_retry_schedule_ms, (std::vector<std::int64_t>{300, 600, 1000}));
}

}  // namespace
}  // namespace payrail::infra::webhooks
