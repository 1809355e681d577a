// Idempotent Kafka producer (enable.idempotence=true, acks=all) used by the outbox relay.
// produce_batch waits for every delivery report, so the relay marks a row published only once
// the broker has acknowledged it.
#pragma once

#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::kafka {

struct ProducerOptions {
  std::string brokers;
  std::string client_id = "payrail";
  int message_timeout_ms = 10000;
};

struct ProduceItem {
  std::string topic;
  std::string key;
  std::string payload;
};

// The broker's acknowledgement of one message, and where it put it.
struct Delivered {
  bool acknowledged = false;
  int32_t partition = -1;
  int64_t offset = -1;
};

class Producer {
 public:
  static model::Result<std::unique_ptr<Producer>> create(const ProducerOptions& options);
  ~Producer();

  // Returns, per item, whether the broker acknowledged it, and where it put it. Blocks at most
  // about message_timeout_ms: librdkafka reports every message by then.
  std::vector<Delivered> produce_batch(const std::vector<ProduceItem>& items);

  const std::string& brokers() const { return options_.brokers; }

  // True when the cluster answered a metadata request within timeout.
  bool reachable(std::chrono::milliseconds timeout);

 private:
  explicit Producer(ProducerOptions options);
  model::Status connect();
  void recreate_after_fatal_error();

  ProducerOptions options_;
  std::mutex mutex_;  // serializes batches and re-creation
  std::unique_ptr<RdKafka::DeliveryReportCb> delivery_callback_;
  std::unique_ptr<RdKafka::Producer> producer_;
};

// Sets a librdkafka property or returns the error text.
model::Status set_property(RdKafka::Conf& conf, const std::string& name, const std::string& value);

}  // namespace payrail::infra::kafka
