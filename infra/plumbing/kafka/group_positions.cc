#include "infra/plumbing/kafka/group_positions.h"

#include <librdkafka/rdkafka.h>

#include <map>

#include "infra/plumbing/kafka/client.h"
#include "topics/registry.h"

namespace payrail::infra::kafka {
namespace {

model::Error positions_error(const std::string& text) {
  return model::Error::make(model::ErrorCode::service_unavailable, "Kafka positions: " + text);
}

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

// The partitions of `topics` (broker names), each with `offset` as its input.
PartitionList partition_list(const std::vector<std::string>& broker_topics,
                             const std::vector<int>& partitions, int64_t offset) {
  PartitionList list(rd_kafka_topic_partition_list_new(0));
  for (std::size_t i = 0; i < broker_topics.size(); ++i) {
    for (int partition = 0; partition < partitions[i]; ++partition) {
      rd_kafka_topic_partition_list_add(list.get(), broker_topics[i].c_str(), partition)->offset =
          offset;
    }
  }
  return list;
}

// One watermark of every listed partition: RD_KAFKA_OFFSET_BEGINNING asks for the low one,
// RD_KAFKA_OFFSET_END for the high one (Kafka's ListOffsets with its special timestamps).
model::Result<std::map<std::pair<std::string, int32_t>, int64_t>> watermarks(
    rd_kafka_t* handle, const std::vector<std::string>& broker_topics,
    const std::vector<int>& partitions, int64_t which, std::chrono::milliseconds timeout) {
  auto list = partition_list(broker_topics, partitions, which);
  const auto code =
      rd_kafka_offsets_for_times(handle, list.get(), static_cast<int>(timeout.count()));
  if (code != RD_KAFKA_RESP_ERR_NO_ERROR) return positions_error(rd_kafka_err2str(code));
  std::map<std::pair<std::string, int32_t>, int64_t> offsets;
  for (int i = 0; i < list->cnt; ++i) {
    const auto& entry = list->elems[i];
    if (entry.err == RD_KAFKA_RESP_ERR_NO_ERROR && entry.offset >= 0) {
      offsets[{entry.topic, entry.partition}] = entry.offset;
    }
  }
  return offsets;
}

// The group's committed offset of every listed partition (-1 where it has none).
model::Result<std::map<std::pair<std::string, int32_t>, int64_t>> committed(
    rd_kafka_t* handle, const std::string& group_id, const std::vector<std::string>& broker_topics,
    const std::vector<int>& partitions, std::chrono::milliseconds timeout) {
  auto list = partition_list(broker_topics, partitions, RD_KAFKA_OFFSET_INVALID);
  auto* request = rd_kafka_ListConsumerGroupOffsets_new(group_id.c_str(), list.get());
  auto* options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS);
  char error_text[256];
  rd_kafka_AdminOptions_set_request_timeout(options, static_cast<int>(timeout.count()), error_text,
                                            sizeof error_text);
  auto* queue = rd_kafka_queue_new(handle);
  rd_kafka_ListConsumerGroupOffsets(handle, &request, 1, options, queue);
  auto* event = rd_kafka_queue_poll(queue, static_cast<int>(timeout.count()) + 1000);
  model::Result<std::map<std::pair<std::string, int32_t>, int64_t>> result =
      positions_error("no answer for group " + group_id);
  if (event != nullptr && rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    result = positions_error(rd_kafka_event_error_string(event));
  } else if (const auto* answer =
                 event ? rd_kafka_event_ListConsumerGroupOffsets_result(event) : nullptr) {
    std::size_t count = 0;
    const auto** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(answer, &count);
    std::map<std::pair<std::string, int32_t>, int64_t> offsets;
    for (std::size_t g = 0; g < count; ++g) {
      const auto* group_partitions = rd_kafka_group_result_partitions(groups[g]);
      for (int i = 0; group_partitions && i < group_partitions->cnt; ++i) {
        const auto& entry = group_partitions->elems[i];
        if (entry.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
        offsets[{entry.topic, entry.partition}] = entry.offset >= 0 ? entry.offset : -1;
      }
    }
    result = std::move(offsets);
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_ListConsumerGroupOffsets_destroy(request);
  return result;
}

}  // namespace

void GroupPositions::HandleDeleter::operator()(rd_kafka_s* handle) const {
  rd_kafka_destroy(handle);
}

GroupPositions::GroupPositions(std::string brokers, std::string topic_prefix)
    : brokers_(std::move(brokers)), topic_prefix_(std::move(topic_prefix)) {}

GroupPositions::~GroupPositions() = default;

model::Status GroupPositions::connect() {
  std::string error_text;
  rd_kafka_t* handle =
      create_admin_handle(brokers_, {{"client.id", "payrail-relay-positions"}}, error_text);
  if (handle == nullptr) return positions_error(error_text);
  handle_.reset(handle);
  return model::ok_status();
}

model::Result<std::vector<PartitionPosition>> GroupPositions::all(
    std::chrono::milliseconds timeout) {
  std::map<std::string, std::vector<const topics::TopicSpec*>> by_group;
  for (const auto& topic : topics::all_topics()) {
    by_group[std::string(topic.consumer_group)].push_back(&topic);
  }
  return positions(by_group, timeout);
}

model::Result<std::vector<PartitionPosition>> GroupPositions::of(
    const topics::TopicSpec& topic, const std::string& group_id,
    std::chrono::milliseconds timeout) {
  return positions({{group_id, {&topic}}}, timeout);
}

model::Result<std::vector<PartitionPosition>> GroupPositions::positions(
    const std::map<std::string, std::vector<const topics::TopicSpec*>>& by_group,
    std::chrono::milliseconds timeout) {
  if (!handle_) {
    if (auto connected = connect(); !connected.ok()) return connected.error();
  }
  std::vector<std::string> broker_topics;
  std::vector<int> partitions;
  for (const auto& [group_id, group_topics] : by_group) {
    for (const auto* topic : group_topics) {
      broker_topics.push_back(topics::broker_topic_name(*topic, topic_prefix_));
      partitions.push_back(topic->partitions);
    }
  }
  auto low =
      watermarks(handle_.get(), broker_topics, partitions, RD_KAFKA_OFFSET_BEGINNING, timeout);
  if (!low.ok()) return low.error();
  auto high = watermarks(handle_.get(), broker_topics, partitions, RD_KAFKA_OFFSET_END, timeout);
  if (!high.ok()) return high.error();
  std::vector<PartitionPosition> positions;
  for (const auto& [group_id, group_topics] : by_group) {
    std::vector<std::string> names;
    std::vector<int> counts;
    for (const auto* topic : group_topics) {
      names.push_back(topics::broker_topic_name(*topic, topic_prefix_));
      counts.push_back(topic->partitions);
    }
    auto commits = committed(handle_.get(), group_id, names, counts, timeout);
    if (!commits.ok()) return commits.error();
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (int32_t partition = 0; partition < counts[i]; ++partition) {
        const std::pair<std::string, int32_t> key{names[i], partition};
        const auto low_offset = low->find(key);
        const auto high_offset = high->find(key);
        const auto commit = commits->find(key);
        if (low_offset == low->end() || high_offset == high->end() || commit == commits->end()) {
          return positions_error("no position for " + key.first + "/" + std::to_string(partition));
        }
        positions.push_back({std::string(group_topics[i]->name), partition, low_offset->second,
                             high_offset->second, commit->second});
      }
    }
  }
  return positions;
}

}  // namespace payrail::infra::kafka
