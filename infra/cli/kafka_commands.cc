// Kafka commands: consumer lag and replays.
#include <cstdio>

#include "infra/cli/command_table.h"
#include "infra/kafka/admin.h"
#include "topics/registry.h"

namespace payrail::infra::cli {
namespace {

int consumer_lag(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("consumer-lag needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  auto lag = kafka::consumer_lag(config.kafka_brokers, group,
                                 topics::broker_topic_name(*topic, config.topic_prefix));
  if (!lag.ok()) return fail(lag.error().message);
  std::printf("%ld\n", *lag);
  return 0;
}

int offsets_reset(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("offsets-reset needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  auto status = kafka::reset_offsets_to_earliest(
      config.kafka_brokers, group, topics::broker_topic_name(*topic, config.topic_prefix));
  if (!status.ok()) return fail(status.error().message);
  std::printf("group %s rewound to the start of %s\n", group.c_str(), topic_name->c_str());
  return 0;
}

}  // namespace

void add_kafka_commands(CommandTable& table) {
  table["consumer-lag"] = {"consumer-lag --topic payouts.requested [--group payrail-screening]",
                           "messages the group has not committed yet", consumer_lag};
  table["offsets-reset"] = {"offsets-reset --topic payouts.requested [--group payrail-screening]",
                            "replay a topic: rewind a stopped consumer group to offset 0",
                            offsets_reset};
}

}  // namespace payrail::infra::cli
