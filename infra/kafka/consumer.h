// A consumer-group member that applies messages one at a time.
//
// PROCESSING MUST BE IDEMPOTENT. Delivery is at least once: the handler applies a message in one
// Postgres transaction guarded by the resource's current state, and the offset is stored
// (enable.auto.offset.store=false) only after that transaction committed. A crash before the
// offset is committed means the message is applied again, and must change nothing.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "schemas/model/result.h"
#include "topics/envelope.h"

namespace payrail::infra::kafka {

enum class HandlerOutcome {
  done,   // applied, or already applied, or not applicable any more: move on
  retry,  // a transient failure (database down): apply the same message again after a pause
};

using MessageHandler = std::function<HandlerOutcome(const topics::Envelope& message)>;

struct ConsumerOptions {
  std::string brokers;
  std::string group_id;
  std::vector<std::string> topics;  // broker topic names
  std::string client_id = "payrail";
  int session_timeout_ms = 6000;
  int retry_backoff_max_ms = 5000;
  std::string debug;  // librdkafka debug contexts; empty for none
};

class ConsumerRunner {
 public:
  ConsumerRunner(ConsumerOptions options, MessageHandler handler);
  // Consumes until `stop` becomes true, then leaves the group cleanly.
  model::Status run(const std::atomic<bool>& stop);

 private:
  ConsumerOptions options_;
  MessageHandler handler_;
};

}  // namespace payrail::infra::kafka
