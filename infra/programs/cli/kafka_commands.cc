// Kafka commands: consumer lag, replays from an offset or a time, re-publishing from Postgres.
#include <chrono>
#include <cstdio>

#include "infra/plumbing/kafka/admin.h"
#include "infra/plumbing/kafka/group_positions.h"
#include "infra/plumbing/time/clock.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/outbox/republish.h"
#include "topics/registry.h"

namespace payrail::infra::cli {
namespace {

constexpr auto kLagTimeout = std::chrono::seconds(15);

int consumer_lag(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("consumer-lag needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  kafka::GroupPositions group_positions(config.kafka_brokers, config.topic_prefix);
  auto positions = group_positions.of(*topic, group, kLagTimeout);
  if (!positions.ok()) return fail(positions.error().message);
  // Messages the group has not committed yet: a partition without a commit counts from its start.
  long lag = 0;
  for (const auto& position : *positions) {
    lag += static_cast<long>(position.high -
                             (position.committed >= 0 ? position.committed : position.low));
  }
  std::printf("%ld\n", lag);
  return 0;
}

int reset_to_time(const std::string& brokers, const std::string& group, const std::string& topic,
                  const std::string& text) {
  const auto time = time::parse_utc_ms(text);
  if (!time)
    return fail("--to-time must look like 2026-11-21T10:00:00Z or 2026-11-21T10:00:00.250Z");
  const auto time_ms = time->time_since_epoch().count();
  auto resets = kafka::reset_offsets_to_time(brokers, group, topic, time_ms);
  if (!resets.ok()) return fail(resets.error().message);
  long replayed = 0;
  for (const auto& reset : *resets) {
    std::printf("partition %d: offset %lld of %lld\n", reset.partition,
                static_cast<long long>(reset.offset), static_cast<long long>(reset.end));
    replayed += static_cast<long>(reset.end - reset.offset);
  }
  std::printf("group %s moved to %s on %s: %ld messages to apply\n", group.c_str(), text.c_str(),
              topic.c_str(), replayed);
  return 0;
}

int offsets_reset(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("offsets-reset needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  const auto broker_topic = topics::broker_topic_name(*topic, config.topic_prefix);
  if (const auto to_time = option(options, "to-time")) {
    return reset_to_time(config.kafka_brokers, group, broker_topic, *to_time);
  }
  auto status = kafka::reset_offsets_to_earliest(config.kafka_brokers, group, broker_topic);
  if (!status.ok()) return fail(status.error().message);
  std::printf("group %s rewound to the start of %s\n", group.c_str(), topic_name->c_str());
  return 0;
}

int republish(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("republish needs --topic <registry topic name>");
  const auto from = option(options, "from");
  const auto to = option(options, "to");
  if (!from || !to || !time::parse_utc(*from) || !time::parse_utc(*to)) {
    return fail("republish needs --from and --to like 2026-11-21T10:00:00Z");
  }
  if (*time::parse_utc(*from) >= *time::parse_utc(*to)) return fail("--from must be before --to");
  auto producer =
      kafka::Producer::create({.brokers = config.kafka_brokers, .client_id = "payrail-cli"});
  if (!producer.ok()) return fail(producer.error().message);
  auto pool = open_pool(config);
  auto done = store::outbox::republish(pool, **producer, {topic, config.topic_prefix, *from, *to});
  if (!done.ok()) return fail(done.error().message);
  std::printf("republished %ld messages of %s created in [%s, %s)\n", done->messages,
              topic_name->c_str(), from->c_str(), to->c_str());
  if (done->failed > 0) {
    return fail(std::to_string(done->failed) + " messages were not acknowledged; run it again");
  }
  return 0;
}

}  // namespace

void add_kafka_commands(CommandTable& table) {
  table["consumer-lag"] = {"consumer-lag --topic payouts.requested [--group payrail-screening]",
                           "messages the group has not committed yet", consumer_lag};
  table["offsets-reset"] = {
      "offsets-reset --topic payouts.requested [--group payrail-screening] "
      "[--to-time 2026-11-21T10:00:00Z]",
      "replay a topic: move a stopped consumer group to offset 0, or to the first message at or "
      "after a time",
      offsets_reset};
  table["republish"] = {
      "republish --topic payouts.requested --from 2026-11-21T10:00:00Z --to 2026-11-21T11:00:00Z",
      "publish a topic's outbox messages of a time range again (the broker lost them); "
      "consumers apply only what they had not",
      republish};
}

}  // namespace payrail::infra::cli
