#include "tests/support/mock_cluster.h"

#include <span>

#include "topics/registry.h"

namespace payrail::testing {

MockCluster::MockCluster() {
  char error_text[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", error_text, sizeof error_text);
  handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error_text, sizeof error_text);
  cluster_ = handle_ ? rd_kafka_mock_cluster_new(handle_, 1) : nullptr;
  for (const auto& topic : cluster_ ? topics::all_topics() : std::span<const topics::TopicSpec>{}) {
    const auto name = topics::broker_topic_name(topic, "");
    rd_kafka_mock_topic_create(cluster_, name.c_str(), topic.partitions, 1);
  }
}

MockCluster::~MockCluster() {
  if (cluster_) rd_kafka_mock_cluster_destroy(cluster_);
  if (handle_) rd_kafka_destroy(handle_);
}

}  // namespace payrail::testing
