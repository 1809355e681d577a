// The outbox relay: publishes committed outbox rows to Kafka and marks them published soon after
// the broker acknowledged them (unless a consumer did first); re-drives rows that were published
// but never consumed (the broker may have lost them, for example the in-memory development broker
// restarting).
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
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/kafka/group_positions.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::outbox {

struct RelayOptions {
  std::string topic_prefix;
  std::size_t batch_max = 500;
  std::chrono::milliseconds poll_interval{200};
  std::chrono::milliseconds redrive_after{30000};
  // How long after the broker's acknowledgement a publication is recorded, if no consumer has
  // recorded it by then (marking a message consumed marks it published). Bounded by the rows'
  // lease: a row handed over up to 4 s after its commit, acknowledged within the producer's
  // 10 s, is recorded before its 15 s lease runs out (outbox.cc).
  std::chrono::milliseconds record_after{500};
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

  // One batch: take or claim rows, publish, back off the failed ones. Returns rows published,
  // whose publication record_publications records later.
  model::Result<std::size_t> publish_once(Source source);
  // Records the publications acknowledged record_after ago or earlier (due), or all of them,
  // skipping rows a consumer already marked. Returns the rows this wrote.
  enum class Recording { due, all };
  model::Result<std::size_t> record_publications(Recording recording);
  // Returns published-but-unconsumed rows older than redrive_after to the unpublished state,
  // except those the broker still holds for a consumer group that has not reached them yet.
  model::Result<std::size_t> redrive_once();
  // Sets the payrail_outbox_* backlog gauges from the table (every 5 s in the relay thread).
  model::Status refresh_backlog();

 private:
  void run();
  void take_committed_rows(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items);
  model::Status claim_all_due(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items);
  std::string broker_topic(const std::string& registry_name) const;
  std::chrono::milliseconds until_next_record() const;

  // Published rows whose publication is not recorded yet, oldest first (the relay thread's).
  struct Publication {
    long id = 0;
    int32_t partition = -1;
    int64_t offset = -1;
  };
  struct Unrecorded {
    std::chrono::steady_clock::time_point acknowledged_at;
    std::vector<Publication> publications;
  };

  pg::Pool& pool_;
  kafka::Producer& producer_;
  RelayOptions options_;
  kafka::GroupPositions positions_;  // asked only while a row is old enough to be re-driven
  std::mutex mutex_;
  std::condition_variable wake_signal_;
  bool woken_ = false;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::deque<Unrecorded> unrecorded_;
  std::size_t unrecorded_count_ = 0;
};

}  // namespace payrail::infra::store::outbox
