// The delivery loop of payrail-webhooks: one dispatcher thread claims due deliveries from
// Postgres with a lease, a fixed set of sender threads sends them and records each outcome.
//
// Postgres holds the schedule (next_attempt_at), so nothing is lost across restarts; the lease
// keeps one delivery to one sender at a time across any number of processes; a killed process's
// leases expire and another sender takes the work over.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "infra/adapters/webhooks/delivery_client.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/config/config.h"
#include "infra/store/webhooks/webhook_deliveries.h"

namespace payrail::workers::webhooks {

// A lease covers the pre-send work, one send bounded by the timeout, and recording; the send
// starts only while at least timeout + kLeaseSafetyMs of the lease remain.
constexpr std::int64_t kLeaseMarginMs = 5000;
constexpr std::int64_t kLeaseSafetyMs = 2000;
constexpr std::int64_t kIdlePollMinMs = 10;
constexpr std::int64_t kIdlePollMaxMs = 1000;  // bounds how late an expired lease is noticed
constexpr std::int64_t kErrorBackoffMs = 1000;
// On stop, sends in flight get this long to finish; then they are interrupted (within about a
// second), recorded as an `interrupted` attempt and retried on the schedule, so a shutdown never
// waits for a slow endpoint's full timeout.
constexpr std::int64_t kStopGraceMs = 2000;

struct LoopOptions {
  int senders = 8;
  int timeout_ms = 10000;
  std::vector<std::int64_t> schedule_ms;
  bool allow_private_targets_in_test = false;
  // Opens the endpoints' sealed secrets (current key, else the previous one during a rotation).
  std::optional<infra::crypto::DataKey> encryption_key;
  infra::webhooks::ClientOptions client;

  std::int64_t lease_ms() const {
    return 2 * static_cast<std::int64_t>(timeout_ms) + kLeaseMarginMs;
  }
};

// From PAYRAIL_WEBHOOK_* settings; an invalid key or unreadable CA file is an error.
model::Result<LoopOptions> loop_options_from(const infra::Config& config);

// The delivery loop's own pool: senders never wait behind the consumer. Its statements find
// deliveries by key, or due ones in next_attempt_at order with a LIMIT, so its sessions plan
// without bitmap or sequential scans: with statistics older than the backlog (a table that grew
// since its last ANALYZE, or a backlog that built up since), the claim was planned as a bitmap
// scan that read and sorted every due delivery to take a few (4 ms a claim at 6000 due).
infra::pg::PoolOptions delivery_pool_options(const std::string& database_url,
                                             const LoopOptions& options);

class DeliveryLoop {
 public:
  DeliveryLoop(infra::pg::Pool& pool, LoopOptions options);
  ~DeliveryLoop();
  DeliveryLoop(const DeliveryLoop&) = delete;
  DeliveryLoop& operator=(const DeliveryLoop&) = delete;

  void start();
  // Stops claiming, gives queued claims back, lets sends in flight finish for kStopGraceMs and
  // then interrupts them.
  void stop();
  // New deliveries exist (the fast path after a fan-out): claim now instead of at the next poll.
  void wake();

 private:
  using Claimed = infra::store::webhook_deliveries::ClaimedDelivery;
  struct Queued {
    Claimed delivery;
    std::chrono::steady_clock::time_point claimed_at;
  };

  void dispatch();
  int claimable() const;
  std::chrono::milliseconds claim_round(int wanted);
  void run_sender();
  void deliver(infra::webhooks::DeliveryClient& client, const Queued& queued);
  std::string next_lease_token();

  infra::pg::Pool& pool_;
  LoopOptions options_;
  std::string process_tag_;
  std::atomic<std::uint64_t> claims_{0};

  std::mutex mutex_;
  std::condition_variable dispatch_wakeup_;
  std::condition_variable sender_wakeup_;
  std::condition_variable send_finished_;
  std::deque<Queued> queue_;
  int idle_senders_ = 0;
  int sending_ = 0;
  std::atomic<bool> interrupt_{false};
  bool woken_ = false;
  bool stopping_ = false;
  std::thread dispatcher_;
  std::vector<std::thread> senders_;
};

}  // namespace payrail::workers::webhooks
