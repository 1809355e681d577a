// Where each consumer group stands on its topics' partitions, asked of the broker: the outbox
// relay re-drives a published message that stays unconsumed only once the broker no longer holds
// it or its group has committed past it (relay.cc), not while it waits in the broker for a group
// that is down.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schemas/model/common/result.h"
#include "topics/registry.h"

struct rd_kafka_s;

namespace payrail::infra::kafka {

struct PartitionPosition {
  std::string topic;  // the registry's name (no prefix)
  int32_t partition = 0;
  int64_t low = 0;         // the first offset the broker still holds
  int64_t high = 0;        // the offset its next message will get
  int64_t committed = -1;  // the group's committed offset; -1: none yet (it starts at `low`)
};

class GroupPositions {
 public:
  GroupPositions(std::string brokers, std::string topic_prefix);
  ~GroupPositions();
  GroupPositions(const GroupPositions&) = delete;
  GroupPositions& operator=(const GroupPositions&) = delete;

  // Every partition the registry declares, of every topic, with where the topic's one consumer
  // group stands: a request for each watermark and one per group for its commits. An error
  // unless the broker answered for all of them within `timeout`.
  model::Result<std::vector<PartitionPosition>> all(std::chrono::milliseconds timeout);

  // Every declared partition of one topic, with where `group_id` stands on it (payrail
  // consumer-lag).
  model::Result<std::vector<PartitionPosition>> of(const topics::TopicSpec& topic,
                                                   const std::string& group_id,
                                                   std::chrono::milliseconds timeout);

 private:
  model::Status connect();
  model::Result<std::vector<PartitionPosition>> positions(
      const std::map<std::string, std::vector<const topics::TopicSpec*>>& by_group,
      std::chrono::milliseconds timeout);

  std::string brokers_;
  std::string topic_prefix_;
  struct HandleDeleter {
    void operator()(rd_kafka_s* handle) const;
  };
  std::unique_ptr<rd_kafka_s, HandleDeleter> handle_;  // created at the first call
};

}  // namespace payrail::infra::kafka
