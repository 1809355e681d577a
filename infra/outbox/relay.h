// The outbox relay: publishes committed outbox rows to Kafka and marks them published once the
// broker acknowledged them; re-drives rows that were published but never consumed (the broker
// may have lost them, for example the in-memory development broker restarting).
//
// Every process that writes to the outbox runs one relay thread and wakes it right after its
// commits (the fast path: the rows its process committed are leased to it from their insert, and
// it publishes them from memory); its claim of every due row, once a second, makes publication
// certain. Several relays share the table safely (FOR UPDATE SKIP LOCKED). Publication is at least
// once; consumers are idempotent.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infra/kafka/producer.h"
#include "infra/pg/pool.h"

namespace payrail::infra::outbox {

struct RelayOptions {
  std::string topic_prefix;
  std::size_t batch_max = 500;
  std::chrono::milliseconds poll_interval{200};
  std::chrono::milliseconds redrive_after{30000};
};

class Relay {
 public:
  Relay(pg::Pool& pool, kafka::Producer& producer, RelayOptions options);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  void start();
  void stop();
  void wake();

  // Where a batch comes from: the rows this process committed since the last batch (leased to
  // this relay at their insert: taken from memory, no claim), or a claim of every due row.
  enum class Source { committed, all_due };

  // One batch: take or claim rows, publish, record the outcome. Returns rows published.
  model::Result<std::size_t> publish_once(Source source);
  // Returns published-but-unconsumed rows older than redrive_after to the unpublished state.
  model::Result<std::size_t> redrive_once();
  // Sets the payrail_outbox_* backlog gauges from the table (every 5 s in the relay thread).
  model::Status refresh_backlog();

 private:
  void run();
  void take_committed_rows(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items);
  model::Status claim_all_due(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items);
  std::string broker_topic(const std::string& registry_name) const;

  pg::Pool& pool_;
  kafka::Producer& producer_;
  RelayOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_signal_;
  bool woken_ = false;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace payrail::infra::outbox
