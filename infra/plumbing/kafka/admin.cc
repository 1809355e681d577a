#include "infra/plumbing/kafka/admin.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/kafka/client.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/log/log.h"
#include "topics/registry.h"

namespace payrail::infra::kafka {
namespace {

constexpr int kAdminTimeoutMs = 15000;

model::Error admin_error(const std::string& text) {
  return model::Error::make(model::ErrorCode::service_unavailable, "Kafka admin: " + text);
}

struct HandleDeleter {
  void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

model::Result<Handle> admin_handle(const std::string& brokers) {
  std::string error_text;
  rd_kafka_t* handle = create_admin_handle(brokers, {}, error_text);
  if (handle == nullptr) return admin_error(error_text);
  return Handle(handle);
}

model::Status check_create_results(rd_kafka_event_t* event) {
  const auto* result = rd_kafka_event_CreateTopics_result(event);
  if (result == nullptr) return admin_error("no CreateTopics result");
  size_t count = 0;
  const auto** topics = rd_kafka_CreateTopics_result_topics(result, &count);
  for (size_t i = 0; i < count; ++i) {
    const auto code = rd_kafka_topic_result_error(topics[i]);
    if (code == RD_KAFKA_RESP_ERR_NO_ERROR || code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      continue;
    }
    return admin_error(std::string(rd_kafka_topic_result_name(topics[i])) + ": " +
                       rd_kafka_err2str(code));
  }
  return model::ok_status();
}

}  // namespace

model::Status create_registry_topics(const std::string& brokers, const std::string& prefix,
                                     int replication_factor) {
  auto handle = admin_handle(brokers);
  if (!handle.ok()) return handle.error();
  std::vector<rd_kafka_NewTopic_t*> new_topics;
  char error_text[512];
  for (const auto& topic : topics::all_topics()) {
    const auto name = topics::broker_topic_name(topic, prefix);
    new_topics.push_back(rd_kafka_NewTopic_new(name.c_str(), topic.partitions, replication_factor,
                                               error_text, sizeof error_text));
  }
  rd_kafka_queue_t* queue = rd_kafka_queue_new(handle->get());
  rd_kafka_CreateTopics(handle->get(), new_topics.data(), new_topics.size(), nullptr, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, kAdminTimeoutMs);
  model::Status status = event == nullptr ? model::Status(admin_error("CreateTopics timed out"))
                         : rd_kafka_event_error(event)
                             ? model::Status(admin_error(rd_kafka_event_error_string(event)))
                             : check_create_results(event);
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  rd_kafka_NewTopic_destroy_array(new_topics.data(), new_topics.size());
  return status;
}

namespace {

// A consumer that never subscribes: it only reads and commits the group's offsets.
model::Result<std::unique_ptr<RdKafka::KafkaConsumer>> group_client(const std::string& brokers,
                                                                    const std::string& group_id) {
  int session_timeout_ms = 6000;
  if (const char* text = std::getenv("PAYRAIL_KAFKA_SESSION_TIMEOUT_MS"); text && *text) {
    session_timeout_ms = std::clamp(std::atoi(text), 1000, 300000);
  }
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  auto properties = connection_properties(brokers);
  properties.insert(
      properties.end(),
      {{"group.id", group_id},
       {"enable.auto.commit", "false"},
       // The group's rebalance delay follows its last member's session timeout: the same as the
       // workers' (PAYRAIL_KAFKA_SESSION_TIMEOUT_MS), so those that rejoin after a reset are
       // assigned as quickly as ever.
       {"session.timeout.ms", std::to_string(session_timeout_ms)},
       {"heartbeat.interval.ms", std::to_string(std::max(100, session_timeout_ms / 3))}});
  for (const auto& [name, value] : properties) {
    if (auto status = set_property(*conf, name, value); !status.ok()) return status.error();
  }
  if (const char* debug = std::getenv("PAYRAIL_KAFKA_DEBUG"); debug && *debug) {
    if (auto status = set_property(*conf, "debug", debug); !status.ok()) return status.error();
  }
  std::string error_text;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer(
      RdKafka::KafkaConsumer::create(conf.get(), error_text));
  if (!consumer) return admin_error(error_text);
  return consumer;
}

struct PartitionRange {
  int32_t partition;
  int64_t low;
  int64_t high;
};

model::Result<std::vector<PartitionRange>> partition_ranges(RdKafka::KafkaConsumer& consumer,
                                                            const std::string& topic) {
  std::string error_text;
  std::unique_ptr<RdKafka::Topic> topic_handle(
      RdKafka::Topic::create(&consumer, topic, nullptr, error_text));
  RdKafka::Metadata* raw_metadata = nullptr;
  if (consumer.metadata(false, topic_handle.get(), &raw_metadata, kAdminTimeoutMs) !=
      RdKafka::ERR_NO_ERROR) {
    return admin_error("metadata for " + topic);
  }
  std::unique_ptr<RdKafka::Metadata> metadata(raw_metadata);
  std::vector<PartitionRange> ranges;
  for (const auto* topic_metadata : *metadata->topics()) {
    for (const auto* partition : *topic_metadata->partitions()) {
      PartitionRange range{partition->id(), 0, 0};
      if (consumer.query_watermark_offsets(topic, range.partition, &range.low, &range.high,
                                           kAdminTimeoutMs) != RdKafka::ERR_NO_ERROR) {
        return admin_error("watermarks for " + topic);
      }
      ranges.push_back(range);
    }
  }
  return ranges;
}

}  // namespace

// Joins the group as its only member (the group must have no active members) and waits for the
// assignment: commits from outside a group are refused by some brokers (librdkafka's mock
// cluster among them), commits from a member are accepted everywhere.
model::Status join_as_only_member(RdKafka::KafkaConsumer& consumer, const std::string& topic) {
  if (consumer.subscribe({topic}) != RdKafka::ERR_NO_ERROR) return admin_error("subscribe");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kAdminTimeoutMs * 2);
  while (std::chrono::steady_clock::now() < deadline) {
    std::unique_ptr<RdKafka::Message> message(consumer.consume(100));
    std::vector<RdKafka::TopicPartition*> assigned;
    consumer.assignment(assigned);
    const bool joined = !assigned.empty();
    RdKafka::TopicPartition::destroy(assigned);
    if (joined) return model::ok_status();
  }
  return admin_error("could not join group (is a worker of the group still running?)");
}

model::Status reset_offsets_to_earliest(const std::string& brokers, const std::string& group_id,
                                        const std::string& topic) {
  auto consumer = group_client(brokers, group_id);
  if (!consumer.ok()) return consumer.error();
  auto ranges = partition_ranges(**consumer, topic);
  if (!ranges.ok()) return ranges.error();
  if (auto joined = join_as_only_member(**consumer, topic); !joined.ok()) return joined;
  std::vector<RdKafka::TopicPartition*> offsets;
  for (const auto& range : *ranges) {
    offsets.push_back(RdKafka::TopicPartition::create(topic, range.partition, range.low));
  }
  const auto code = (*consumer)->commitSync(offsets);
  RdKafka::TopicPartition::destroy(offsets);
  (*consumer)->close();
  if (code != RdKafka::ERR_NO_ERROR) return admin_error(RdKafka::err2str(code));
  log::info("kafka.offsets_reset", {{"group", group_id}, {"topic", topic}});
  return model::ok_status();
}

namespace {

// Reads single messages at chosen offsets, outside any group (assign, never commit), for their
// timestamps.
class TimestampProbe {
 public:
  static model::Result<TimestampProbe> create(const std::string& brokers) {
    auto consumer = group_client(brokers, "payrail-offsets-probe-" + crypto::random_base62(12));
    if (!consumer.ok()) return consumer.error();
    return TimestampProbe(std::move(*consumer));
  }

  model::Result<int64_t> timestamp_at(const std::string& topic, int32_t partition, int64_t offset) {
    std::unique_ptr<RdKafka::TopicPartition> position(
        RdKafka::TopicPartition::create(topic, partition, offset));
    std::vector<RdKafka::TopicPartition*> assignment{position.get()};
    if (consumer_->assign(assignment) != RdKafka::ERR_NO_ERROR) return admin_error("assign");
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kAdminTimeoutMs);
    while (std::chrono::steady_clock::now() < deadline) {
      std::unique_ptr<RdKafka::Message> message(consumer_->consume(200));
      // Only the message asked for: one fetched for an earlier probe may still be delivered,
      // and its timestamp would send the search the wrong way.
      if (message->err() == RdKafka::ERR_NO_ERROR && message->partition() == partition &&
          message->offset() == offset && message->topic_name() == topic) {
        return message->timestamp().timestamp;
      }
    }
    return admin_error("no message at " + topic + "[" + std::to_string(partition) + "] offset " +
                       std::to_string(offset));
  }

  ~TimestampProbe() {
    if (consumer_) consumer_->close();
  }
  TimestampProbe(TimestampProbe&&) = default;

 private:
  explicit TimestampProbe(std::unique_ptr<RdKafka::KafkaConsumer> consumer)
      : consumer_(std::move(consumer)) {}
  std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
};

// The first offset in [range.low, range.high] whose message's timestamp is >= time_ms (high
// when none): a binary search over message timestamps, which the producers make increasing.
model::Result<int64_t> first_offset_at_or_after(TimestampProbe& probe, const std::string& topic,
                                                const PartitionRange& range, int64_t time_ms) {
  int64_t low = range.low;
  int64_t high = range.high;
  while (low < high) {
    const int64_t middle = low + (high - low) / 2;
    auto timestamp = probe.timestamp_at(topic, range.partition, middle);
    if (!timestamp.ok()) return timestamp.error();
    if (*timestamp >= time_ms) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
}

// Kafka's offsets-for-times for every partition: an offset, or -1 for "no message at or after".
model::Result<std::vector<int64_t>> offsets_for_time(RdKafka::KafkaConsumer& consumer,
                                                     const std::string& topic,
                                                     const std::vector<PartitionRange>& ranges,
                                                     int64_t time_ms) {
  std::vector<RdKafka::TopicPartition*> query;
  for (const auto& range : ranges) {
    query.push_back(RdKafka::TopicPartition::create(topic, range.partition, time_ms));
  }
  const auto code = consumer.offsetsForTimes(query, kAdminTimeoutMs);
  std::vector<int64_t> offsets;
  for (const auto* partition : query) offsets.push_back(partition->offset());
  RdKafka::TopicPartition::destroy(query);
  if (code != RdKafka::ERR_NO_ERROR)
    return admin_error("offsets for times: " + RdKafka::err2str(code));
  return offsets;
}

}  // namespace

model::Result<std::vector<PartitionReset>> reset_offsets_to_time(const std::string& brokers,
                                                                 const std::string& group_id,
                                                                 const std::string& topic,
                                                                 int64_t time_ms) {
  auto consumer = group_client(brokers, group_id);
  if (!consumer.ok()) return consumer.error();
  auto ranges = partition_ranges(**consumer, topic);
  if (!ranges.ok()) return ranges.error();
  auto answered = offsets_for_time(**consumer, topic, *ranges, time_ms);
  if (!answered.ok()) return answered.error();
  auto probe = TimestampProbe::create(brokers);
  if (!probe.ok()) return probe.error();
  std::vector<PartitionReset> resets;
  for (std::size_t i = 0; i < ranges->size(); ++i) {
    const auto& range = (*ranges)[i];
    PartitionReset reset{range.partition, range.high, range.high};
    if ((*answered)[i] >= 0) {
      reset.offset = std::clamp((*answered)[i], range.low, range.high);
    } else if (range.high > range.low) {
      // "None at or after" is true only if the last message is older; otherwise the broker
      // could not answer and the timestamps are read.
      auto last = probe->timestamp_at(topic, range.partition, range.high - 1);
      if (!last.ok()) return last.error();
      if (*last >= time_ms) {
        auto found = first_offset_at_or_after(*probe, topic, range, time_ms);
        if (!found.ok()) return found.error();
        reset.offset = *found;
      }
    }
    resets.push_back(reset);
  }
  if (auto joined = join_as_only_member(**consumer, topic); !joined.ok()) return joined.error();
  std::vector<RdKafka::TopicPartition*> offsets;
  for (const auto& reset : resets) {
    offsets.push_back(RdKafka::TopicPartition::create(topic, reset.partition, reset.offset));
  }
  const auto code = (*consumer)->commitSync(offsets);
  RdKafka::TopicPartition::destroy(offsets);
  (*consumer)->close();
  if (code != RdKafka::ERR_NO_ERROR) return admin_error(RdKafka::err2str(code));
  log::info("kafka.offsets_reset",
            {{"group", group_id}, {"topic", topic}, {"time_ms", std::to_string(time_ms)}});
  return resets;
}

}  // namespace payrail::infra::kafka
