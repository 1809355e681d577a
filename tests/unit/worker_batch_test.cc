// The worker runtime's batch bookkeeping: what becomes of each message, and that a retried
// message takes every later message of its partition (and only those) with it; a message
// delivered twice in one batch is applied once.
#include <gtest/gtest.h>

#include <algorithm>

#include "infra/programs/runtime/worker.h"

namespace payrail::infra::runtime {
namespace {

using kafka::HandlerOutcome;

kafka::Delivery delivery(int32_t partition, int64_t offset) {
  kafka::Delivery result;
  result.envelope.message_id = "msg_" + std::to_string(partition) + "_" + std::to_string(offset);
  result.topic = "payouts.requested";
  result.partition = partition;
  result.offset = offset;
  return result;
}

Batch two_partitions() {
  // Partition 0: offsets 10, 11, 12; partition 1: offsets 5, 6 (interleaved as consumed).
  return Batch(topics::kPayoutsRequested,
               {delivery(0, 10), delivery(1, 5), delivery(0, 11), delivery(1, 6), delivery(0, 12)});
}

TEST(WorkerBatch, EveryMessageIsDoneUnlessRetried) {
  auto batch = two_partitions();
  batch.finish(1);
  batch.park(3);
  EXPECT_FALSE(batch.active(1));
  EXPECT_FALSE(batch.active(3));
  EXPECT_TRUE(batch.active(0));
  EXPECT_EQ(batch.outcomes(), std::vector<HandlerOutcome>(5, HandlerOutcome::done));
}

TEST(WorkerBatch, RetryTakesTheLaterMessagesOfItsPartitionOnly) {
  auto batch = two_partitions();
  batch.retry(2);  // partition 0, offset 11
  EXPECT_EQ(batch.outcomes(), (std::vector<HandlerOutcome>{
                                  HandlerOutcome::done, HandlerOutcome::done, HandlerOutcome::retry,
                                  HandlerOutcome::done, HandlerOutcome::retry}));
  EXPECT_TRUE(batch.active(0));
  EXPECT_TRUE(batch.active(1));
  EXPECT_FALSE(batch.active(4));
  EXPECT_TRUE(batch.any_active());
}

TEST(WorkerBatch, FinishingDoesNotUndoARetry) {
  auto batch = two_partitions();
  batch.retry(1);
  batch.finish(3);
  EXPECT_EQ(batch.outcomes()[3], HandlerOutcome::retry);
}

TEST(WorkerBatch, OnlyUnavailableDependenciesAreUncounted) {
  using model::ErrorCode;
  for (const auto code : {ErrorCode::service_unavailable, ErrorCode::sanctions_unavailable,
                          ErrorCode::provider_unavailable}) {
    EXPECT_TRUE(is_dependency_unavailable(model::Error::make(code, "down")));
  }
  for (const auto code :
       {ErrorCode::internal_error, ErrorCode::bad_request, ErrorCode::insufficient_balance}) {
    EXPECT_FALSE(is_dependency_unavailable(model::Error::make(code, "own failure")));
  }
}

TEST(WorkerBatch, AMessageDeliveredTwiceIsAppliedOnceAndRetriedWithItsFirstCopy) {
  auto copy = delivery(0, 12);
  copy.envelope.message_id = "msg_0_10";  // offset 12 carries the message of offset 10 again
  Batch batch(topics::kPayoutsRequested, {delivery(0, 10), delivery(0, 11), copy});
  EXPECT_TRUE(batch.active(0));
  EXPECT_TRUE(batch.active(1));
  EXPECT_FALSE(batch.active(2));
  EXPECT_EQ(batch.outcomes(), std::vector<HandlerOutcome>(3, HandlerOutcome::done));
  batch.retry(0);
  EXPECT_EQ(batch.outcomes(), std::vector<HandlerOutcome>(3, HandlerOutcome::retry));
}

// Screening's empty fetches are held for less: a create's answer waits for that hop. Every other
// role keeps the longer wait, and PAYRAIL_KAFKA_FETCH_WAIT_MS sets every role's.
TEST(WorkerFetchWait, ARoleARequestWaitsForFetchesWithTheShorterWait) {
  const auto handlers_of = [](std::vector<const topics::TopicSpec*> topics) {
    std::vector<TopicHandler> handlers;
    for (const auto* topic : topics) handlers.push_back({topic, nullptr});
    return handlers;
  };
  const Config defaults;
  EXPECT_EQ(consumer_fetch_wait_ms(defaults, handlers_of({&topics::kPayoutsRequested,
                                                          &topics::kFiatPayoutsRequested})),
            topics::kAnswerFetchWaitMs);
  EXPECT_EQ(consumer_fetch_wait_ms(
                defaults, handlers_of({&topics::kPayoutsApproved, &topics::kFiatPayoutsApproved})),
            topics::kFetchWaitMs);
  EXPECT_EQ(consumer_fetch_wait_ms(defaults, handlers_of({&topics::kEvents})),
            topics::kFetchWaitMs);
  EXPECT_LT(topics::kAnswerFetchWaitMs, topics::kFetchWaitMs);
  Config overridden;
  overridden.kafka_fetch_wait_ms = 20;
  EXPECT_EQ(consumer_fetch_wait_ms(overridden, handlers_of({&topics::kPayoutsRequested})), 20);
}

// A loaded screening worker holds a batch's first message for less than the other roles (not at
// all, today): every create's answer waits for it. PAYRAIL_WORKER_BATCH_WAIT_MS is the other
// roles' wait, and caps screening's too.
TEST(WorkerBatchWait, ARoleARequestWaitsForHoldsItsBatchesForLess) {
  const auto handlers_of = [](std::vector<const topics::TopicSpec*> topics) {
    std::vector<TopicHandler> handlers;
    for (const auto* topic : topics) handlers.push_back({topic, nullptr});
    return handlers;
  };
  Config config;
  config.worker_batch_wait_ms = 20;
  EXPECT_EQ(consumer_batch_wait_ms(
                config, handlers_of({&topics::kPayoutsRequested, &topics::kFiatPayoutsRequested})),
            topics::kAnswerBatchWaitMs);
  EXPECT_EQ(consumer_batch_wait_ms(config, handlers_of({&topics::kPayoutsApproved})), 20);
  EXPECT_EQ(consumer_batch_wait_ms(config, handlers_of({&topics::kPayoutsBroadcast})), 20);
  EXPECT_LT(topics::kAnswerBatchWaitMs, Config{}.worker_batch_wait_ms);
  config.worker_batch_wait_ms = 3;
  EXPECT_EQ(consumer_batch_wait_ms(config, handlers_of({&topics::kPayoutsRequested})),
            std::min(3, topics::kAnswerBatchWaitMs));
  EXPECT_EQ(consumer_batch_wait_ms(config, handlers_of({&topics::kPayoutsApproved})), 3);
}

}  // namespace
}  // namespace payrail::infra::runtime
