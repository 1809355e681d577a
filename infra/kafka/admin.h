// Operator actions on a Kafka cluster: creating the registry's topics (real Kafka; the embedded
// broker creates them itself because librdkafka's mock cluster has no CreateTopics) and resetting
// a consumer group's offsets to replay a topic.
#pragma once

#include <string>

#include "schemas/model/result.h"

namespace payrail::infra::kafka {

model::Status create_registry_topics(const std::string& brokers, const std::string& prefix,
                                     int replication_factor);

// Rewinds `group_id` to the earliest offset of every partition of `topic`. The group must have
// no active members (stop its workers first), as with kafka-consumer-groups --reset-offsets;
// this joins the group briefly as its only member to commit.
model::Status reset_offsets_to_earliest(const std::string& brokers, const std::string& group_id,
                                        const std::string& topic);

// Messages of `topic` not yet committed by `group_id`: the sum over partitions of the high
// watermark minus the committed offset (a partition without a commit counts from its start).
model::Result<long> consumer_lag(const std::string& brokers, const std::string& group_id,
                                 const std::string& topic);

}  // namespace payrail::infra::kafka
