// Operator actions on a Kafka cluster: creating the registry's topics (real Kafka; the embedded
// broker creates them itself because librdkafka's mock cluster has no CreateTopics) and resetting
// a consumer group's offsets to replay a topic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::kafka {

model::Status create_registry_topics(const std::string& brokers, const std::string& prefix,
                                     int replication_factor);

// Rewinds `group_id` to the earliest offset of every partition of `topic`. The group must have
// no active members (stop its workers first), as with kafka-consumer-groups --reset-offsets;
// this joins the group briefly as its only member to commit.
model::Status reset_offsets_to_earliest(const std::string& brokers, const std::string& group_id,
                                        const std::string& topic);

struct PartitionReset {
  int32_t partition = 0;
  int64_t offset = 0;  // the group's new committed offset
  int64_t end = 0;     // the partition's high watermark: end - offset messages will be applied
};

// Moves `group_id` on every partition of `topic` to the first message whose timestamp is at or
// after `time_ms` (milliseconds since the epoch; a time after the last message moves it to the
// end), as kafka-consumer-groups --reset-offsets --to-datetime does. The offsets come from
// Kafka's offsets-for-times (ListOffsets); a broker that cannot answer it (librdkafka's mock
// cluster answers "none" for every time) is handled by reading message timestamps directly: a
// binary search per partition, one fetch per probe. The group must have no active members.
model::Result<std::vector<PartitionReset>> reset_offsets_to_time(const std::string& brokers,
                                                                 const std::string& group_id,
                                                                 const std::string& topic,
                                                                 int64_t time_ms);

}  // namespace payrail::infra::kafka
