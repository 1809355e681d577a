// Lets POST /v1/payouts wait (bounded) for the screening worker's decision without holding a
// thread: the screening worker NOTIFYs `payout_decisions` with the payout id in the transaction
// that records the decision; one listener thread per API process wakes the waiters. A waiter is
// registered before the create's transaction starts: the decision is committed after the create,
// so it is never missed and the payout need not be re-read (api/handlers/idempotent_create.h).
#pragma once

#include <pqxx/pqxx>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "infra/plumbing/pg/pool.h"

namespace payrail::api {

class PayoutDecisions {
 public:
  using Callback = std::function<void()>;
  explicit PayoutDecisions(infra::pg::Pool& pool);
  ~PayoutDecisions();

  void start();
  void stop();

  // Runs `done` once, on the listener thread, when `payout_id` is decided or at `deadline`.
  // Returns a handle to cancel with forget(). When too many waiters exist it runs `done` now.
  std::uint64_t wait(const std::string& payout_id, std::chrono::steady_clock::time_point deadline,
                     Callback done);
  // Runs the waiter's callback now if it has not run yet.
  void wake(std::uint64_t handle);
  // Removes the waiter without running its callback (the create it waited for failed).
  void forget(std::uint64_t handle);

 private:
  struct Waiter {
    std::string payout_id;
    std::chrono::steady_clock::time_point deadline;
    Callback done;
  };
  Callback take(std::uint64_t handle);  // removes the waiter; empty when it is gone already
  void run();
  void listen_until_failure();
  void fire_payout(const std::string& payout_id);
  void fire_expired();
  void fire_all();
  std::chrono::milliseconds time_to_next_deadline();

  static constexpr std::size_t kWaitersMax = 20000;
  infra::pg::Pool& pool_;
  std::mutex mutex_;
  std::uint64_t next_handle_ = 1;
  std::map<std::uint64_t, Waiter> waiters_;
  std::multimap<std::string, std::uint64_t> by_payout_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace payrail::api
