#include "api/payout_decisions.h"

#include <vector>

#include "infra/plumbing/log/log.h"
#include "infra/store/screening/screening_workers.h"

namespace payrail::api {
namespace {

constexpr std::chrono::milliseconds kListenSliceMax{100};

class DecisionReceiver : public pqxx::notification_receiver {
 public:
  DecisionReceiver(pqxx::connection_base& connection, std::function<void(const std::string&)> on)
      : pqxx::notification_receiver(connection, infra::store::screening_workers::kDecisionChannel),
        on_(std::move(on)) {}
  void operator()(const std::string& payload, int) override { on_(payload); }

 private:
  std::function<void(const std::string&)> on_;
};

}  // namespace

PayoutDecisions::PayoutDecisions(infra::pg::Pool& pool) : pool_(pool) {}

PayoutDecisions::~PayoutDecisions() {
  stop();
}

void PayoutDecisions::start() {
  thread_ = std::thread([this] { run(); });
}

void PayoutDecisions::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  fire_all();
}

std::uint64_t PayoutDecisions::wait(const std::string& payout_id,
                                    std::chrono::steady_clock::time_point deadline, Callback done) {
  std::unique_lock lock(mutex_);
  if (waiters_.size() >= kWaitersMax || stopping_) {
    lock.unlock();
    done();
    return 0;
  }
  const auto handle = next_handle_++;
  waiters_.emplace(handle, Waiter{payout_id, deadline, std::move(done)});
  by_payout_.emplace(payout_id, handle);
  return handle;
}

PayoutDecisions::Callback PayoutDecisions::take(std::uint64_t handle) {
  std::lock_guard lock(mutex_);
  const auto it = waiters_.find(handle);
  if (it == waiters_.end()) return {};
  auto done = std::move(it->second.done);
  auto [first, last] = by_payout_.equal_range(it->second.payout_id);
  for (auto entry = first; entry != last; ++entry) {
    if (entry->second == handle) {
      by_payout_.erase(entry);
      break;
    }
  }
  waiters_.erase(it);
  return done;
}

void PayoutDecisions::wake(std::uint64_t handle) {
  if (auto done = take(handle)) done();
}

void PayoutDecisions::forget(std::uint64_t handle) {
  take(handle);
}

void PayoutDecisions::fire_payout(const std::string& payout_id) {
  std::vector<std::uint64_t> handles;
  {
    std::lock_guard lock(mutex_);
    auto [first, last] = by_payout_.equal_range(payout_id);
    for (auto entry = first; entry != last; ++entry) handles.push_back(entry->second);
  }
  for (const auto handle : handles) wake(handle);
}

void PayoutDecisions::fire_expired() {
  std::vector<std::uint64_t> handles;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    for (const auto& [handle, waiter] : waiters_) {
      if (waiter.deadline <= now) handles.push_back(handle);
    }
  }
  for (const auto handle : handles) wake(handle);
}

void PayoutDecisions::fire_all() {
  std::vector<std::uint64_t> handles;
  {
    std::lock_guard lock(mutex_);
    for (const auto& entry : waiters_) handles.push_back(entry.first);
  }
  for (const auto handle : handles) wake(handle);
}

std::chrono::milliseconds PayoutDecisions::time_to_next_deadline() {
  std::lock_guard lock(mutex_);
  auto slice = kListenSliceMax;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [handle, waiter] : waiters_) {
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(waiter.deadline - now);
    slice = std::max(std::chrono::milliseconds(1), std::min(slice, remaining));
  }
  return slice;
}

void PayoutDecisions::listen_until_failure() {
  auto connection = pool_.open_connection();
  if (!connection.ok()) return;
  DecisionReceiver receiver(**connection, [this](const std::string& id) { fire_payout(id); });
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    const auto slice = time_to_next_deadline();
    (*connection)->await_notification(0, static_cast<long>(slice.count()) * 1000);
    fire_expired();
  }
}

void PayoutDecisions::run() {
  for (;;) {
    try {
      listen_until_failure();
    } catch (const std::exception& failure) {
      infra::log::warn("payout_decisions.listen_failed", {{"error", failure.what()}});
    }
    // Without a listener, nobody would wake the waiters: let them re-read the payout now.
    fire_all();
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace payrail::api
