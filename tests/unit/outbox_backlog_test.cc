// How often each process counts the outbox backlog for its gauges: every 5 s while the count is
// cheap, and 50 times what it cost when it is not, so that counting a large backlog (a consumer
// group down for minutes) takes at most 2% of a connection's time in every process.
#include <gtest/gtest.h>

#include "infra/outbox/relay.h"

namespace payrail::infra::outbox {
namespace {

using std::chrono::milliseconds;

TEST(OutboxBacklog, CheapCountsRunEveryFiveSeconds) {
  EXPECT_EQ(backlog_refresh_wait(milliseconds(0)), milliseconds(5000));
  EXPECT_EQ(backlog_refresh_wait(milliseconds(2)), milliseconds(5000));
  EXPECT_EQ(backlog_refresh_wait(milliseconds(100)), milliseconds(5000));
}

TEST(OutboxBacklog, CostlyCountsWaitFiftyTimesTheirCost) {
  EXPECT_EQ(backlog_refresh_wait(milliseconds(200)), milliseconds(10000));
  EXPECT_EQ(backlog_refresh_wait(milliseconds(1500)), milliseconds(75000));
}

}  // namespace
}  // namespace payrail::infra::outbox
