// A consumer-group member that applies messages in batches: whatever has arrived, up to
// batch_max (while messages keep coming, waiting batch_wait_ms after the first for more), in
// partition order.
//
// PROCESSING MUST BE IDEMPOTENT. Delivery is at least once: the handler applies messages in
// Postgres transactions guarded by the resources' current state, and a partition's offset is
// stored (enable.auto.offset.store=false) only after those transactions committed, and never past
// a message the handler asked to retry: the partition is rewound to it. A crash before the offset
// is committed means messages are applied again, and must change nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schemas/model/common/result.h"
#include "topics/envelope.h"

namespace payrail::infra::kafka {

enum class HandlerOutcome {
  done,   // applied, or already applied, or not applicable any more: move on
  retry,  // a transient failure (database down): apply the same message again after a pause
};

struct Delivery {
  topics::Envelope envelope;
  std::string topic;  // broker topic name
  int32_t partition = 0;
  int64_t offset = 0;
};

// Returns one outcome per delivery, in the same order. A retried delivery must be followed by
// retries for every later delivery of its partition (they are delivered again after it).
using BatchHandler = std::function<std::vector<HandlerOutcome>(const std::vector<Delivery>&)>;

struct ConsumerOptions {
  std::string brokers;
  std::string group_id;
  std::vector<std::string> topics;  // broker topic names
  std::string client_id = "payrail";
  int session_timeout_ms = 6000;
  int retry_backoff_max_ms = 5000;
  std::size_t batch_max = 100;
  int batch_wait_ms = 0;
  // How long the broker may hold a fetch that found nothing. A real Kafka answers it as soon as a
  // message arrives; librdkafka's mock cluster (the embedded broker) holds it the whole time, so
  // this is each hop's latency there.
  int fetch_wait_ms = 5;
  std::string debug;  // librdkafka debug contexts; empty for none
};

class ConsumerRunner {
 public:
  ConsumerRunner(ConsumerOptions options, BatchHandler handler);
  // Consumes until `stop` becomes true, then leaves the group cleanly.
  model::Status run(const std::atomic<bool>& stop);

 private:
  ConsumerOptions options_;
  BatchHandler handler_;
};

}  // namespace payrail::infra::kafka
